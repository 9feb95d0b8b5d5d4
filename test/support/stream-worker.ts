/**
 * A worker process for the multi-process stream test:
 * `node --import tsx test/support/stream-worker.ts <url> <stream> <name>`.
 * It claims batches, and for each message acks it and records the ack in the same
 * transaction (counter `acks/m<n>` += 1, `acks-by/<name>` += count), until the stream is
 * empty. Prints `DONE <acked>` and exits 0.
 */
import { openStore } from '../../src/store/open-store.js';

const [url, stream, name] = process.argv.slice(2);
if (!url || !stream || !name) {
  console.error('usage: stream-worker.ts <url> <stream> <name>');
  process.exit(2);
}

const store = await openStore(url);
let total = 0;
for (;;) {
  const batch = await store.claim(stream, { consumer: name, max: 50, leaseMs: 120_000 });
  if (batch.length === 0) {
    if ((await store.countMessages(stream)) === 0) break;
    await new Promise((done) => setTimeout(done, 5));
    continue;
  }
  total += await store.transaction(async (tx) => {
    let acked = 0;
    for (const message of batch) {
      if (await tx.ack(stream, message.id, name)) {
        const n = (message.payload as { n: number }).n;
        await tx.addCounter({ job: 'acks', field: `m${n}` }, 1n);
        acked++;
      }
    }
    await tx.addCounter({ job: 'acks-by', field: name }, BigInt(acked));
    return acked;
  });
}
await store.close();
console.log(`DONE ${total}`);
