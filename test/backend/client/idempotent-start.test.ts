/**
 * Starts with an idempotency key, on a simulated clock: the first start claims the key;
 * another start with it gets that job (`return`), a ConflictError (`refuse`), or — once the
 * job ended — a new job (`after_end`); an expired key is free again; twenty starts with
 * one key at once are one job; keys are per workflow; bad options are refused. The store
 * half (claim, replace, prune) runs on both stores.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { SimulatedClock } from '../../../src/core/clock.js';
import { ConflictError, ValidationError } from '../../../src/core/errors.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import type { Store } from '../../../src/store/store.js';
import { openTestStore } from '../../support/store-under-test.js';

const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;

let store: Store;
let close: () => Promise<void>;
let clock: SimulatedClock;
let client: Client;

beforeEach(async () => {
  clock = new SimulatedClock(T0);
  ({ store, close } = await openTestStore({ clock }));
  client = new Client(store, { clock });
  for (const name of ['charge', 'refund']) {
    await client.deploy(
      compileWorkflow(
        `workflow: ${name}\nactivities:\n  start: { kind: trigger }\n  wait: { kind: hook }\ntransitions:\n  start: [wait]\n`,
      ),
    );
  }
});
afterEach(async () => close());

describe('a start with an idempotency key', () => {
  it('returns the job that holds the key, by default, until the key expires', async () => {
    const first = await client.start('charge', { n: 1 }, { idempotencyKey: 'order-42' });
    const again = await client.start('charge', { n: 2 }, { idempotencyKey: 'order-42' });
    expect(again.id).toBe(first.id);
    expect(again.input).toEqual({ n: 1 });
    // Per workflow: the same key on another workflow is another job.
    const refund = await client.start('refund', {}, { idempotencyKey: 'order-42' });
    expect(refund.id).not.toBe(first.id);
    await clock.advance(24 * HOUR);
    const later = await client.start('charge', { n: 3 }, { idempotencyKey: 'order-42' });
    expect(later.id).not.toBe(first.id);
    expect((await store.listJobs({ workflow: 'charge' })).length).toBe(2);
  });

  it('refuses a start with a held key under refuse, naming the job', async () => {
    const first = await client.start('charge', {}, { idempotencyKey: 'k', idempotencyTtlMs: HOUR });
    const refused = await client
      .start('charge', {}, { idempotencyKey: 'k', onDuplicate: 'refuse' })
      .catch((e) => e);
    expect(refused).toBeInstanceOf(ConflictError);
    expect(refused.code).toBe('DUPLICATE_START');
    expect(refused.message).toBe(
      `idempotency key "k" of workflow charge is held by job ${first.id} (RUNNING) until it expires`,
    );
    await clock.advance(HOUR);
    const free = await client.start('charge', {}, { idempotencyKey: 'k', onDuplicate: 'refuse' });
    expect(free.id).not.toBe(first.id);
  });

  it('after_end: the running job while it runs, a new job once it ended', async () => {
    const first = await client.start(
      'charge',
      {},
      { idempotencyKey: 'k', onDuplicate: 'after_end' },
    );
    expect(
      (await client.start('charge', {}, { idempotencyKey: 'k', onDuplicate: 'after_end' })).id,
    ).toBe(first.id);
    await client.cancel(first.id);
    const second = await client.start(
      'charge',
      {},
      { idempotencyKey: 'k', onDuplicate: 'after_end' },
    );
    expect(second.id).not.toBe(first.id);
    // The new job holds the key now.
    expect((await client.start('charge', {}, { idempotencyKey: 'k' })).id).toBe(second.id);
  });

  it('makes twenty starts with one key at once one job', async () => {
    const started = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client.start('charge', { i }, { idempotencyKey: 'burst' }),
      ),
    );
    expect(new Set(started.map((j) => j.id)).size).toBe(1);
    expect((await store.listJobs({ workflow: 'charge' })).length).toBe(1);
  });

  it('refuses bad options before anything is stored', async () => {
    const refusal = (options: Parameters<typeof client.start>[2]) =>
      client.start('charge', {}, options as never).then(
        () => 'started',
        (e: Error) => (e instanceof ValidationError ? e.message : `other: ${e.message}`),
      );
    expect(await refusal({ idempotencyKey: '' })).toBe(
      'start: idempotencyKey "" is not a string of 1 to 200 characters',
    );
    expect(await refusal({ idempotencyKey: 'k', idempotencyTtlMs: 0 })).toMatch(
      /^start: idempotencyTtlMs 0 is not a whole number of ms from 1 to /,
    );
    expect(await refusal({ idempotencyKey: 'k', onDuplicate: 'twice' as never })).toBe(
      'start: onDuplicate "twice" is not one of return, refuse, after_end',
    );
    expect(await refusal({ onDuplicate: 'refuse' })).toBe(
      'start: idempotencyTtlMs and onDuplicate need an idempotencyKey',
    );
    expect(await store.listJobs({})).toEqual([]);
  });

  it('store: a claim takes a free or expired key, else names its holder; replace and prune', async () => {
    const claim = { workflow: 'w', key: 'k', job: 'j1', expiresAt: T0 + 100 };
    expect(await store.claimIdempotencyKey(claim, T0)).toBe('j1');
    expect(await store.claimIdempotencyKey({ ...claim, job: 'j2' }, T0 + 99)).toBe('j1');
    expect(
      await store.claimIdempotencyKey({ ...claim, job: 'j3', expiresAt: T0 + 300 }, T0 + 100),
    ).toBe('j3');
    await store.replaceIdempotencyKey({ ...claim, job: 'j4', expiresAt: T0 + 200 });
    expect(await store.claimIdempotencyKey({ ...claim, job: 'j5' }, T0 + 150)).toBe('j4');
    expect(await store.pruneIdempotencyKeys(T0 + 199)).toBe(0);
    expect(await store.pruneIdempotencyKeys(T0 + 200)).toBe(1);
    expect(await store.claimIdempotencyKey({ ...claim, job: 'j6' }, T0 + 150)).toBe('j6');
  });
});
