/**
 * Opens a store, subscribes to a stream and returns without closing anything:
 * `node --import tsx test/support/subscribe-child.ts <url>`. The process must still exit
 * on its own (the notice poll timer is unref'ed). Prints `SUBSCRIBED`.
 */
import { openStore } from '../../src/store/open-store.js';

const [url] = process.argv.slice(2);
const store = await openStore(url);
await store.subscribe({ kind: 'stream', name: 'work' }, () => {});
console.log('SUBSCRIBED');
