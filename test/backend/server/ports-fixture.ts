/**
 * Both servers over one store under test, with live things to aim at: a graph job
 * waiting at its hook with its `charge` task handed out to an agent, and a code-first
 * `sum` instance whose decision is handed out — so a request that got through would
 * change something. Each server runs twice: open (loopback, no token) and locked (a
 * token). Nothing runs in the background once it is ready (no worker, no engine), so the
 * store changes only when a request changes it.
 */
import { Client } from '../../../src/client/client.js';
import { compileWorkflow } from '../../../src/engine/compiler.js';
import { AgentServer } from '../../../src/server/agent-server.js';
import { type RunningDashboard, startDashboard } from '../../../src/server/dashboard.js';
import type { Store } from '../../../src/store/store.js';
import { Worker } from '../../../src/worker/worker.js';
import type { LogFields } from '../../../src/worker/worker-options.js';
import { openTestStore } from '../../support/store-under-test.js';
import { waitFor } from '../../support/wait-for.js';

/** The locked servers' token. */
export const TOKEN = 'K7f2-s3cret-token_0123456789';

/** The agent server's body limit here (small, so huge bodies are quick to send). */
export const AGENT_MAX_BODY = 256 * 1024;

const order = compileWorkflow(`
workflow: order
activities:
  start:   { kind: trigger }
  charge:  { kind: task }
  approve: { kind: hook, signal: approve }
transitions:
  start: [charge, approve]
`);

/** A 5xx a server logged (there should be none). */
export interface LoggedFailure {
  message: string;
  fields: LogFields | undefined;
}

export interface PortsFixture {
  store: Store;
  url: string;
  client: Client;
  agent: { open: string; locked: string };
  dashboard: { open: string; locked: string };
  /** The graph job (waiting at `approve`), its handed-out task's uuid, the instance and its decision's uuid. */
  ids: { job: string; task: string; instance: string; decision: string };
  failures: LoggedFailure[];
  close(): Promise<void>;
}

/** An agent's request: JSON declared, the token when given. */
async function agentCall(base: string, path: string, token?: string) {
  const response = await fetch(`${base}${path}`, {
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
  });
  // biome-ignore lint/suspicious/noExplicitAny: wire JSON
  return (await response.json()) as any;
}

export async function portsFixture(): Promise<PortsFixture> {
  const { store, url, close } = await openTestStore();
  const client = new Client(store);
  const failures: LoggedFailure[] = [];
  const logger = {
    error: (message: string, _e?: unknown, fields?: LogFields) =>
      failures.push({ message, fields }),
    warn: (message: string, _e?: unknown, fields?: LogFields) => failures.push({ message, fields }),
    info() {},
  };
  await client.deploy(order);
  const job = await client.start('order', { card: '4111 1111 1111 1111' });
  // The engine takes the job to its hook and hands `charge` to task:charge; then stops.
  const worker = new Worker({ store, logger });
  await worker.start();
  await waitFor(async () => {
    const view = await client.status(job.id);
    const paused = view.activities.find((a) => a.id === 'approve')?.state === 'Paused';
    return paused && (await store.countMessages('task:charge')) === 1;
  }, 'the job to wait at its hook with its task queued');
  await worker.stop();

  const common = { store, workflows: ['sum'], tasks: ['charge'], logger };
  const open = new AgentServer({ ...common, maxBodyBytes: AGENT_MAX_BODY });
  const locked = new AgentServer({ ...common, maxBodyBytes: AGENT_MAX_BODY, token: TOKEN });
  const agent = { open: (await open.listen(0)).url, locked: (await locked.listen(0)).url };
  const instance = await client.start('sum', [3, 4]);
  const decision = await agentCall(agent.open, '/job?workflows=sum&tasks=');
  const task = await agentCall(agent.open, '/job?tasks=charge&workflows=');
  if (decision.action !== 'DecisionScheduled' || task.action !== 'TaskScheduled') {
    throw new Error(`nothing handed out: ${JSON.stringify({ decision, task })}`);
  }
  const dashboards: RunningDashboard[] = [
    await startDashboard({ store, client, port: 0, logger }),
    await startDashboard({ store, client, port: 0, token: TOKEN, logger }),
  ];
  return {
    store,
    url,
    client,
    agent,
    dashboard: { open: dashboards[0]?.url as string, locked: dashboards[1]?.url as string },
    ids: { job: job.id, task: task.uuid, instance: instance.id, decision: decision.uuid },
    failures,
    async close() {
      for (const d of dashboards) await d.close();
      await open.close();
      await locked.close();
      await close();
    },
  };
}
