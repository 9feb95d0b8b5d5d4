/**
 * Every scenario, in the order.
 */
import type { Scenario } from '../scenario.js';
import { bigSpreadScenario } from './big-spread.js';
import { codeFirstScenario } from './code-first.js';
import { compileScenario } from './compile.js';
import { fanOutScenario } from './fan-out.js';
import { idleScaleScenario } from './idle-scale.js';
import { latencyScenario } from './latency.js';
import { linearGraphScenario } from './linear-graph.js';
import { queueOverheadScenario } from './queue-overhead.js';
import { signalsScenario } from './signals.js';
import { spreadCollectScenario } from './spread-collect.js';

/**
 * Scenarios 1–6, 7 (crossflow's spread and collect), 8 (one big spread), 9 (compile) and
 * 10 (a queue that does not limit).
 */
export const SCENARIOS: readonly Scenario[] = [
  linearGraphScenario,
  codeFirstScenario,
  fanOutScenario,
  latencyScenario,
  signalsScenario,
  idleScaleScenario,
  spreadCollectScenario,
  bigSpreadScenario,
  compileScenario,
  queueOverheadScenario,
];
