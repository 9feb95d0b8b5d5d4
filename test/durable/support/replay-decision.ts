/**
 * Runs the decision in flight of a serialized instance and prints its outcome as JSON.
 * Used by the replay determinism test in a fresh `node --import tsx` process:
 *   node --import tsx test/durable/support/replay-decision.ts <instance.json>
 */
import { readFileSync } from 'node:fs';
import type { Instance } from '../../../src/durable/index.js';
import {
  currentDecisionRequest,
  runDecision,
  seededValueSource,
} from '../../../src/durable/index.js';
import { checkout, REPLAY_SEED } from './replay-fixture.js';

const [file] = process.argv.slice(2);
if (!file) throw new Error('usage: replay-decision.ts <instance.json>');
const instance = JSON.parse(readFileSync(file, 'utf8')) as Instance;
const request = currentDecisionRequest(instance);
if (!request) throw new Error('the instance has no decision in flight');
const outcome = await runDecision(request, checkout, { values: seededValueSource(REPLAY_SEED) });
process.stdout.write(JSON.stringify(outcome));
