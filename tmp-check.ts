import { openStore } from './src/store/open-store.js';
import { startRedisCluster, stopRedisCluster } from './test/support/redis-cluster.js';
const c = await startRedisCluster(3, { replicas: 1, nodeTimeoutMs: 2000 });
try {
  const warnings: string[] = [];
  const s = await openStore(`${c.url}?wait=2&waitTimeout=100`, { onWarning: (m) => warnings.push(m) });
  console.log('warnings', warnings);
  try { await s.createJob({ id: 'x', workflow: 'w', version: 1, model: 'graph', input: null, state: 'RUNNING' } as never); console.log('no error!'); }
  catch (e) { console.log('error', (e as Error & {code: string}).code, (e as Error).message); }
  await s.close();
  const s1 = await openStore(`${c.url}?wait=1&waitTimeout=100`);
  const t = Date.now();
  for (let i = 0; i < 200; i++) await s1.createJob({ id: `y${i}`, workflow: 'w', version: 1, model: 'graph', input: null, state: 'RUNNING' } as never);
  console.log('200 creates wait=1', Date.now() - t);
  await s1.close();
} finally { stopRedisCluster(c); }
process.exit(0);
