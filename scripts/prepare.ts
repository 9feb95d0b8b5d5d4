/**
 * npm's `prepare`: builds the package (`npm run build`) unless `dist/` is already newer
 * than its sources (scripts/dist-fresh.ts). npm runs `prepare` on `npm install` in a
 * clone, and again whenever it installs the clone as a dependency by path — which `npx
 * weft …` in the clone does the first time (npm links the clone into its npx cache): a
 * second build there made the README's first `npx weft run` take up to 40 s, and
 * rewrote `dist/` under the `weft` processes of a test run.
 */
import { fileURLToPath } from 'node:url';
import { buildIfStale } from './dist-fresh.js';

buildIfStale(fileURLToPath(new URL('..', import.meta.url)));
