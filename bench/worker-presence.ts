/**
 * What a worker's presence costs the store each window: `tsx bench/worker-presence.ts
 * [--backlog 100000] [--store sqlite|postgres] [--postgres-url URL]`. On a fresh database
 * it queues `--backlog` messages on a served task stream, 10 on an unserved one and half
 * the backlog on the engine stream, records 20 workers, then times (median of 9) the two
 * reads a worker's watch makes every window — `listWorkers(since)` and
 * `waitingStreams('task:', before, skip)` skipping the served stream — and
 * `waitingStreams` without the skip, which counts the backlog up to its cap.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openStore } from '../src/store/open-store.js';
import { startBenchPostgres } from './postgres-server.js';

const { values } = parseArgs({
  options: {
    backlog: { type: 'string', default: '100000' },
    store: { type: 'string', default: 'sqlite' },
    'postgres-url': { type: 'string' },
  },
});
const BACKLOG = Number(values.backlog);

async function median(fn: () => Promise<unknown>): Promise<string> {
  const runs: number[] = [];
  for (let i = 0; i < 9; i++) {
    const t = performance.now();
    await fn();
    runs.push(performance.now() - t);
  }
  return `${(runs.sort((a, b) => a - b)[4] ?? 0).toFixed(1)} ms`;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-presence-'));
  const postgres =
    values.store === 'postgres' ? await startBenchPostgres(values['postgres-url']) : undefined;
  const store = await openStore(
    postgres ? await postgres.createDatabase('presence') : `sqlite:${join(dir, 'presence.db')}`,
  );
  try {
    const append = async (stream: string, count: number) => {
      for (let done = 0; done < count; done += 1000) {
        const n = Math.min(1000, count - done);
        await store.append(
          Array.from({ length: n }, (_, k) => ({ stream, job: `j${done + k}`, payload: k })),
        );
      }
    };
    await append('task:busy', BACKLOG);
    await append('task:brown', 10);
    await append('engine', Math.floor(BACKLOG / 2));
    const now = Date.now();
    for (let w = 0; w < 20; w++) {
      await store.putWorker({
        id: `w${w}`,
        tasks: ['busy'],
        streams: ['engine'],
        workflows: [],
        at: now,
      });
    }
    const before = now + 60_000;
    console.log(
      `${store.dialect}, ${BACKLOG} messages on a served task stream: ` +
        `listWorkers ${await median(() => store.listWorkers(now - 30_000))}, ` +
        `waitingStreams skipping it ${await median(() => store.waitingStreams('task:', before, ['task:busy']))}, ` +
        `without the skip ${await median(() => store.waitingStreams('task:', before))}`,
    );
  } finally {
    await store.close();
    await postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
