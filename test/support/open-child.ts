/**
 * Opens a store (applying migrations) and closes it: `node --import tsx
 * test/support/open-child.ts <url>`. Prints `OPENED` on success, the error's code otherwise.
 */
import { WeftError } from '../../src/core/errors.js';
import { openStore } from '../../src/store/open-store.js';

const [url] = process.argv.slice(2);
try {
  const store = await openStore(url);
  await store.createJob({
    id: `opened-${process.pid}`,
    workflow: 'w',
    version: 1,
    model: 'graph',
    input: null,
  });
  await store.close();
  console.log('OPENED');
} catch (error) {
  console.log(error instanceof WeftError ? error.code : String(error));
  process.exit(1);
}
