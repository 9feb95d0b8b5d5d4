/**
 * Redis only (issue 23): Leg1's two moves and the readings a crash can leave. On every
 * store the engine folds Leg1's entry (`HINCRBY -100000000000000`) and exit
 * (`-10000000000000`) into one add committed with the step's ack and its hand-offs, so a
 * semaphore reads `999…` (Leg1 not run) or `889…` (run), never `899…` (entered, not
 * exited). Shown with worker processes while redis-server is SIGKILLed and restarted
 * (appendfsync always), every semaphore read with HGET through a plain connection, and
 * every Redis Stream checked to mirror its messages after each restart.
 *
 * Then the two readings the Leg1 entry can give on a second delivery, with the seed's own
 * numbers: `789…` (a duplicate of a step already committed: only acked, nothing runs
 * again) and `799…` (the state a store that split Leg1's two moves would leave after a
 * crash between them, planted with HINCRBY: Leg1 runs again, and the semaphore ends at
 * `788000001000001`).
 */
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '../../../src/client/client.js';
import { SimulatedClock } from '../../../src/core/clock.js';
import { LEG1_ENTRY, readLeg1Entry } from '../../../src/core/semaphore.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import {
  ENGINE_STREAM,
  type EngineMessage,
  type EnterMessage,
  taskStream,
} from '../../../src/engine/messages.js';
import { openStore } from '../../../src/store/open-store.js';
import type { Store } from '../../../src/store/store.js';
import { renderChaosReport } from '../../support/chaos-report.js';
import { runChaos } from '../../support/chaos-run.js';
import { EngineStepper } from '../../support/engine-stepper.js';
import { killRedisServer, startRedisServer, stopRedisServer } from '../../support/redis-server.js';
import { auditStreams } from '../../support/redis-stream-audit.js';
import {
  backend,
  freshStoreUrl,
  redisCluster,
  skipBackend,
  type TestStoreLocation,
} from '../../support/store-under-test.js';

const onOneRedis = backend === 'redis' && !redisCluster && !skipBackend;

/** Every semaphore field of a server's stores: `key field` → its decimal text, by HGET. */
async function semaphores(redis: Redis): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const key of await redis.keys('weft:{p*}:ctr:*')) {
    for (const field of await redis.hkeys(key)) {
      if (!field.endsWith('\u001fsem') && !field.endsWith('\u001frevert-sem')) continue;
      out.set(`${key} ${field}`, (await redis.hget(key, field)) as string);
    }
  }
  return out;
}

describe.skipIf(!onOneRedis)('Leg1 on Redis: one add, and the 789/799 readings', () => {
  it('SIGKILLs of redis-server under load: no semaphore reads 899…, and every stream mirrors its messages', async () => {
    let server = await startRedisServer();
    const { port, dir } = server;
    const url = `redis://127.0.0.1:${port}/0`;
    const audits: string[][] = [];
    try {
      const result = await runChaos({
        url,
        jobs: 24,
        workers: 2,
        killEveryMs: 800,
        maxKills: 4,
        deadlineMs: 240_000,
        storeRestarts: {
          minMs: 1500,
          maxMs: 3000,
          max: 3,
          restart: async () => {
            const killed = server;
            const exited = new Promise((resolve) => killed.child.once('exit', resolve));
            killRedisServer(killed);
            await exited;
            server = await startRedisServer({ port, dir });
            // What the append-only file kept: every message with its entry, every entry
            // with its message, the pending list naming each holder (one atomic look).
            const look = new Redis(url);
            look.on('error', () => {});
            try {
              audits.push(await auditStreams(look));
            } finally {
              look.disconnect();
            }
          },
        },
      });
      expect(result.violations, renderChaosReport(result)).toEqual([]);
      expect(result.facts.jobsEnded).toBe(24);
      expect(result.storeRestarts).toBeGreaterThan(0);
      expect(audits.length).toBe(result.storeRestarts);
      expect(audits.flat()).toEqual([]);

      const look = new Redis(url);
      look.on('error', () => {});
      try {
        const values = await semaphores(look);
        expect(values.size).toBeGreaterThan(24 * 3);
        const leg1 = new Set([...values.values()].map((v) => v.slice(0, 2)));
        // Leg1 entered and exited together, or (a skipped branch, a revert not needed) not at all.
        expect([...leg1].filter((digits) => digits !== '88' && digits !== '99')).toEqual([]);
        expect([...values.values()].filter((v) => v.startsWith('899'))).toEqual([]);
        expect(await auditStreams(look)).toEqual([]);
      } finally {
        look.disconnect();
      }
    } finally {
      stopRedisServer(server);
    }
  }, 300_000);

  let location: TestStoreLocation;
  let store: Store;
  let raw: Redis;
  let clock: SimulatedClock;
  let client: Client;
  beforeEach(async () => {
    location = await freshStoreUrl();
    clock = new SimulatedClock(Date.now());
    store = await openStore(location.url, { clock });
    client = new Client(store, { clock });
    raw = new Redis(location.url);
    raw.on('error', () => {});
    await client.deploy(
      compileWorkflow(`
workflow: legs
activities:
  start: { kind: trigger }
  work:  { kind: task }
transitions: { start: [work] }
`),
    );
  });
  afterEach(async () => {
    await store.close();
    raw.disconnect();
    await location.cleanup();
  });

  /** Runs `legs` until `work`'s enter message waits in the engine stream; returns it. */
  async function untilWorkEnters(stepper: EngineStepper): Promise<EnterMessage> {
    await client.start('legs', {}, { id: 'legs-1' });
    for (let steps = 0; steps < 10; steps++) {
      const waiting = (await store.peek(ENGINE_STREAM, 10)).map(
        (m) => m.payload as unknown as EngineMessage,
      );
      const enter = waiting.find((m): m is EnterMessage => m.k === 'enter' && m.a === 'work');
      if (enter) return enter;
      await stepper.step();
    }
    throw new Error('work never entered');
  }

  /** The semaphore of `work` in its thread: its hash key and field, as the store keeps them. */
  const semaphore = (enter: EnterMessage) =>
    [`weft:{p0}:ctr:${enter.job}\u001f${enter.d}`, `${enter.a}\u001fsem`] as const;

  /** A stepper whose `work` handler notes each run in `runs`. */
  const workStepper = (runs: string[]) =>
    new EngineStepper(
      store,
      {
        work: async () => {
          runs.push('work');
          return 'done';
        },
      },
      clock,
    );

  it('789: a duplicate of a committed Leg1 reads 789000000000000, is only acked, and nothing runs again', async () => {
    const runs: string[] = [];
    const stepper = workStepper(runs);
    const enter = await untilWorkEnters(stepper);
    const [key, field] = semaphore(enter);
    expect(await raw.hget(key, field)).toBeNull();
    // Leg1 of `work`: entry and exit in one add, with the task message it hands on.
    expect(await stepper.step()).toBe(true);
    expect(await raw.hget(key, field)).toBe('889000000000000');
    expect(await store.countMessages(taskStream('work'))).toBe(1);

    // The same enter message delivered again (a re-append: the crash came after the
    // commit, before the sender knew). Its entry add reads 789…: Leg1 finished before.
    await store.append([{ stream: ENGINE_STREAM, job: enter.job, payload: { ...enter } }]);
    const reading = BigInt((await raw.hget(key, field)) as string) + LEG1_ENTRY;
    expect(reading).toBe(789_000_000_000_000n);
    expect(readLeg1Entry(reading)).toBe('done');
    expect(await stepper.step()).toBe(true);
    // Only acked: no second task message, the semaphore as it was, the engine stream empty.
    expect(await store.countMessages(ENGINE_STREAM)).toBe(0);
    expect(await store.countMessages(taskStream('work'))).toBe(1);
    expect(await raw.hget(key, field)).toBe('889000000000000');

    await stepper.runUntilIdle();
    expect(runs).toEqual(['work']);
    expect(await raw.hget(key, field)).toBe('888000001000001');
    expect((await client.status(enter.job)).state).toBe('SUCCESS');
    expect(await auditStreams(raw)).toEqual([]);
  });

  it('799: after a crash between a split Leg1 entry and exit, the entry reads 799000000000000 and Leg1 runs again', async () => {
    const runs: string[] = [];
    const stepper = workStepper(runs);
    const enter = await untilWorkEnters(stepper);
    const [key, field] = semaphore(enter);
    // What a store that split Leg1's two moves would leave: the parent's 999… and the
    // seed worker's entry add, then a crash before the exit (and before the hand-off).
    await raw.hsetnx(key, field, '999000000000000');
    expect(await raw.hincrby(key, field, '-100000000000000')).toBe(899_000_000_000_000);
    expect(await store.countMessages(taskStream('work'))).toBe(0);

    // Its message delivered: the entry add reads 799… — Leg1 began and never finished.
    const reading = BigInt((await raw.hget(key, field)) as string) + LEG1_ENTRY;
    expect(reading).toBe(799_000_000_000_000n);
    expect(readLeg1Entry(reading)).toBe('rerun');
    expect(await stepper.step()).toBe(true);
    // Leg1 ran again: its entry and exit (−110000000000000) leave 789…, its task handed on.
    expect(await raw.hget(key, field)).toBe('789000000000000');
    expect(await store.countMessages(taskStream('work'))).toBe(1);

    await stepper.runUntilIdle();
    expect(runs).toEqual(['work']);
    // Leg2's final result (+1000000 −999999999999) closes it: 788….
    expect(await raw.hget(key, field)).toBe('788000001000001');
    expect((await client.status(enter.job)).state).toBe('SUCCESS');
    expect(await auditStreams(raw)).toEqual([]);
  });
});
