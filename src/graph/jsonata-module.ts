/**
 * jsonata, loaded with `require`. It is one 300 KB CommonJS file: an ES `import` of it
 * has Node scan the whole file for its named exports first, about 50 ms of CPU in every
 * process that compiles or evaluates an expression (each `weft` command among them).
 */
import { createRequire } from 'node:module';
import type Jsonata from 'jsonata';

/** The jsonata function: `jsonata(source, options)` parses an expression. */
export const jsonata = createRequire(import.meta.url)('jsonata') as typeof Jsonata;
