/**
 * Writes schema/workflow.schema.json, the JSON Schema of the workflow file format, from
 * the zod schema in src/graph/workflow-document.ts. Run it after changing the format:
 * `npx tsx scripts/write-schema.ts` (test/graph/json-schema.test.ts fails until you do).
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { workflowJsonSchema } from '../src/engine/compiler.js';

const target = fileURLToPath(new URL('../schema/workflow.schema.json', import.meta.url));
writeFileSync(target, `${JSON.stringify(workflowJsonSchema(), null, 2)}\n`);
// Formatted as the linter wants it, so `npm run lint` passes on a regenerated file.
execFileSync('npx', ['biome', 'format', '--write', target], { stdio: 'ignore' });
console.log(`wrote ${target}`);
