/**
 * Replay determinism: an instance serialized to JSON mid-run, with its next decision
 * run in a fresh Node process, yields exactly the decisions the same decision yields
 * in this process.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  currentDecisionRequest,
  type DecisionOutcome,
  runDecision,
  seededValueSource,
} from '../../src/durable/index.js';
import { checkout, price, REPLAY_SEED, reserve } from './support/replay-fixture.js';
import { Simulator } from './support/simulator.js';

const script = join(import.meta.dirname, 'support', 'replay-decision.ts');

function inFreshProcess(json: string): DecisionOutcome {
  const dir = mkdtempSync(join(tmpdir(), 'weft-replay-'));
  const file = join(dir, 'instance.json');
  writeFileSync(file, json);
  const out = execFileSync(process.execPath, ['--import', 'tsx', script, file], {
    cwd: join(import.meta.dirname, '..', '..'),
    encoding: 'utf8',
  });
  return JSON.parse(out) as DecisionOutcome;
}

async function inThisProcess(json: string): Promise<DecisionOutcome> {
  const request = currentDecisionRequest(JSON.parse(json));
  if (!request) throw new Error('no decision in flight');
  return runDecision(request, checkout, { values: seededValueSource(REPLAY_SEED) });
}

describe('replay in a fresh process', () => {
  it('gives the same decisions as in-process, at several points of a run', async () => {
    const sim = new Simulator({ workflows: [checkout], tasks: [price, reserve] });
    const id = sim.start(checkout, [['apple', 'kiwi', 'plum']]);
    const snapshots: string[] = [];
    const take = () => snapshots.push(JSON.stringify(sim.instance(id)));

    take(); // the first decision: handle from the top
    await sim.decide(id);
    for (const name of ['price', 'price', 'price']) sim.startWork(name);
    await sim.decide(id);
    await sim.completeWork('price');
    await sim.completeWork('price');
    await sim.completeWork('price');
    take(); // completions pending: onSuccess branches and handle replays
    await sim.decide(id);
    sim.sendEvent(id, 'coupon', 'TEN');
    take(); // the parallel results are in; the wait and the event are next
    await sim.run();
    expect(sim.instance(id).state).toBe('completed');

    for (const json of snapshots) {
      const here = await inThisProcess(json);
      const there = inFreshProcess(json);
      expect(there).toEqual(here);
      expect(here.decisions.length).toBeGreaterThan(0);
    }
  });
});
