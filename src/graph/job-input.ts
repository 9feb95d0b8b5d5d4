/**
 * The job input check: a workflow's `input:` JSON Schema (draft-07 unless its `$schema`
 * names 2019-09 or 2020-12), prepared once per workflow version, and a job whose input
 * fails it refused with a {@link ValidationError} naming the failing path. Also the
 * compile-time check that `input:` is itself a valid JSON Schema.
 *
 * Validation is interpreted (@cfworker/json-schema): no code is generated from a schema a
 * user sent, so there is no `eval` or `new Function` anywhere on this path. `format`
 * keywords are checked (an `email` must look like one), and schemas are never fetched: a
 * `$ref` must resolve inside the schema.
 */
import { type OutputUnit, type Schema, Validator } from '@cfworker/json-schema';
import { ValidationError } from '../core/errors.js';
import type { CompiledWorkflow } from './compiled-workflow.js';
import { DRAFT_07_META_SCHEMA } from './json-schema-meta.js';

/** Checks schemas against the draft-07 meta-schema. */
const metaValidator = new Validator(DRAFT_07_META_SCHEMA as unknown as Schema, '7', false);

/** The draft a schema asks for with `$schema` (draft-07 when it names none). */
function draftOf(schema: Schema): '4' | '7' | '2019-09' | '2020-12' {
  const id = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (id.includes('2020-12')) return '2020-12';
  if (id.includes('2019-09')) return '2019-09';
  if (id.includes('draft-04')) return '4';
  return '7';
}

function newValidator(schema: Schema): Validator {
  return new Validator(schema, draftOf(schema), false);
}

function isJson(value: unknown, depth = 0): boolean {
  if (depth > 200) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((item) => isJson(item, depth + 1));
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.values(value).every((item) => isJson(item, depth + 1));
  }
  return false;
}

/**
 * Problems with a workflow's `input:` JSON Schema, as messages; empty when it is valid
 * (it is JSON, it satisfies the draft-07 meta-schema, and every `$ref` resolves).
 */
export function checkInputSchema(schema: unknown): string[] {
  if (!isJson(schema)) return ['the input schema must be plain JSON'];
  const text = JSON.stringify(schema);
  const known = checked.get(text);
  if (known) return [...known];
  const problems = schemaProblems(schema as object);
  if (checked.size >= CHECKED_LIMIT) checked.clear();
  checked.set(text, problems);
  return [...problems];
}

/** Schemas already checked, by their JSON text (compiling one takes milliseconds). */
const checked = new Map<string, string[]>();
const CHECKED_LIMIT = 1_000;

function schemaProblems(schema: object): string[] {
  let result: ReturnType<Validator['validate']>;
  try {
    result = metaValidator.validate(schema);
  } catch (error) {
    return [
      `the input schema cannot be read: ${error instanceof Error ? error.message : String(error)}`,
    ];
  }
  if (!result.valid) {
    const leaf = leafErrors(result.errors)[0];
    return [
      `the input schema is not a valid JSON Schema: ${leaf ? `${errorPath(leaf).replace(/^input/, 'schema')} ${leaf.error}` : 'it fails the draft-07 meta-schema'}`,
    ];
  }
  const dangling = danglingRefs(schema);
  if (dangling.length > 0) {
    return [
      `the input schema has a $ref that does not resolve inside it (schemas are never fetched): ${dangling.join(', ')}`,
    ];
  }
  try {
    newValidator(schema as Schema).validate(null);
  } catch (error) {
    return [
      `the input schema cannot be used: ${error instanceof Error ? error.message : String(error)}`,
    ];
  }
  return [];
}

/** The `$ref`s of a schema that do not point inside it. */
function danglingRefs(schema: object): string[] {
  const out: string[] = [];
  const resolve = (ref: string): boolean => {
    if (!ref.startsWith('#')) return false;
    let node: unknown = schema;
    for (const raw of ref.slice(1).split('/').slice(1)) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      if (node === null || typeof node !== 'object' || !(key in node)) return false;
      node = (node as Record<string, unknown>)[key];
    }
    return true;
  };
  const walk = (node: unknown, depth: number) => {
    if (depth > 200 || node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && !resolve(value)) out.push(value);
      else walk(value, depth + 1);
    }
  };
  walk(schema, 0);
  return out;
}

/** Drops the summary errors of composite keywords, keeping the ones that say what failed. */
function leafErrors(errors: readonly OutputUnit[]): OutputUnit[] {
  const summary = new Set([
    'properties',
    'items',
    'allOf',
    'anyOf',
    '$ref',
    'prefixItems',
    'additionalItems',
    'false',
  ]);
  const leaves = errors.filter((e) => !summary.has(e.keyword));
  return leaves.length > 0 ? leaves : [...errors];
}

/** The property a `required` error names. */
function missingProperty(error: OutputUnit): string | undefined {
  return error.keyword === 'required' ? /property "(.*)"/.exec(error.error)?.[1] : undefined;
}

/** Renders an error's location as `input.items[0].name`. */
function errorPath(error: OutputUnit): string {
  let path = 'input';
  const segments = error.instanceLocation
    .replace(/^#/, '')
    .split('/')
    .slice(1)
    .map(decodeURIComponent);
  const missing = missingProperty(error);
  if (missing !== undefined) segments.push(missing);
  for (const raw of segments) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    path += /^\d+$/.test(segment)
      ? `[${segment}]`
      : /^[A-Za-z_$][\w$]*$/.test(segment)
        ? `.${segment}`
        : `[${JSON.stringify(segment)}]`;
  }
  return path;
}

function errorText(error: OutputUnit): string {
  if (error.keyword === 'required') return 'is required';
  if (error.keyword === 'additionalProperties' || error.keyword === 'unevaluatedProperties') {
    const name = /property "(.*)"/i.exec(error.error)?.[1];
    return name !== undefined ? `has unknown property ${JSON.stringify(name)}` : error.error;
  }
  if (error.keyword === 'type') {
    const expected = /Expected "(.*)"/.exec(error.error)?.[1];
    if (expected) return `must be ${expected}`;
  }
  return error.error;
}

interface CachedValidator {
  schemaText: string;
  validator: Validator;
}

/**
 * Validates job inputs against their workflow's input schema, compiling each schema once
 * and caching it by workflow and version (recompiled if the same version arrives with a
 * different schema). Create one per engine; {@link validateJobInput} uses a shared one.
 */
export class JobInputValidator {
  private readonly cache = new Map<string, CachedValidator>();

  /** Throws {@link ValidationError} (code `INVALID_JOB_INPUT`) when `input` fails the schema. */
  validate(compiled: CompiledWorkflow, input: unknown): void {
    const schema = compiled.inputSchema;
    if (schema === undefined) return;
    const key = `${compiled.workflow}@${compiled.version}`;
    const schemaText = JSON.stringify(schema);
    let cached = this.cache.get(key);
    if (!cached || cached.schemaText !== schemaText) {
      cached = { schemaText, validator: newValidator(schema as Schema) };
      this.cache.set(key, cached);
    }
    let result: ReturnType<Validator['validate']>;
    try {
      result = cached.validator.validate(input);
    } catch (cause) {
      throw new ValidationError(
        `job input is not JSON: ${cause instanceof Error ? cause.message : String(cause)}`,
        'input',
        { code: 'INVALID_JOB_INPUT', cause },
      );
    }
    if (result.valid) return;
    const errors = leafErrors(result.errors);
    const first = errors[0];
    const where = first ? errorPath(first) : 'input';
    const details = errors.slice(0, 5).map((e) => `${errorPath(e)} ${errorText(e)}`);
    const more = errors.length > 5 ? ` (and ${errors.length - 5} more)` : '';
    throw new ValidationError(
      `job input does not match the input schema of workflow ${key}: ${details.join('; ')}${more}`,
      where,
      { code: 'INVALID_JOB_INPUT' },
    );
  }
}

const shared = new JobInputValidator();

/**
 * Checks a job input against a compiled workflow's input schema (nothing to do when it
 * has none); throws a {@link ValidationError} whose `where` is the first failing path
 * (`input.amount`) and whose message lists the failures.
 */
export function validateJobInput(compiled: CompiledWorkflow, input: unknown): void {
  shared.validate(compiled, input);
}

/**
 * Keywords whose check is not linear in the schema and the input: patterns and formats
 * run regular expressions (a pattern can backtrack for minutes on a short string),
 * `uniqueItems` compares every pair of items, and a `$ref` can apply a schema again and
 * again (with `anyOf`, exponentially).
 */
const COSTLY_KEYWORDS: ReadonlySet<string> = new Set([
  'pattern',
  'patternProperties',
  'format',
  'uniqueItems',
  '$ref',
  '$dynamicRef',
  '$recursiveRef',
]);

/**
 * True when checking an input against `schema` is provably cheap — at most (size of the
 * schema) × (size of the input) — because it uses none of {@link COSTLY_KEYWORDS}. Other
 * schemas are checked in the expression sandbox, under its hard limits.
 */
export function isCheapInputSchema(schema: unknown): boolean {
  const walk = (node: unknown, depth: number): boolean => {
    if (node === null || typeof node !== 'object') return true;
    if (depth > 200) return false;
    if (Array.isArray(node)) return node.every((item) => walk(item, depth + 1));
    for (const [key, value] of Object.entries(node)) {
      if (COSTLY_KEYWORDS.has(key)) return false;
      if (!walk(value, depth + 1)) return false;
    }
    return true;
  };
  return walk(schema, 0);
}
