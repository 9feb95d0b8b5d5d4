/**
 * The job input check: a workflow's `input:` JSON Schema (draft-07), compiled once per
 * workflow version with ajv, and a job whose input fails it refused with a
 * {@link ValidationError} naming the failing path. Also the compile-time check that
 * `input:` is itself a valid JSON Schema.
 *
 * Ajv turns each schema into a validation function (generated code it compiles itself,
 * from the schema's structure; user strings are escaped, never run). `format` keywords
 * are not checked, and schemas are never fetched: a `$ref` must resolve inside the schema.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { ValidationError } from '../core/errors.js';
import type { CompiledWorkflow } from './compiled-workflow.js';

function newAjv(): Ajv {
  return new Ajv({ allErrors: true, strict: false, validateFormats: false, logger: false });
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
  const ajv = newAjv();
  if (!ajv.validateSchema(schema)) {
    return [
      `the input schema is not a valid JSON Schema: ${ajv.errorsText(ajv.errors, { dataVar: 'input' })}`,
    ];
  }
  try {
    ajv.compile(schema);
  } catch (error) {
    return [
      `the input schema cannot be compiled: ${error instanceof Error ? error.message : String(error)}`,
    ];
  }
  return [];
}

/** Renders an ajv error's location as `input.items[0].name`. */
function errorPath(error: ErrorObject): string {
  let path = 'input';
  const segments = error.instancePath.split('/').slice(1);
  const missing = error.keyword === 'required' ? error.params.missingProperty : undefined;
  if (typeof missing === 'string') segments.push(missing.replace(/~/g, '~0').replace(/\//g, '~1'));
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

function errorText(error: ErrorObject): string {
  if (error.keyword === 'required') return 'is required';
  if (error.keyword === 'additionalProperties') {
    return `has unknown property ${JSON.stringify(error.params.additionalProperty)}`;
  }
  return error.message ?? error.keyword;
}

interface CachedValidator {
  schemaText: string;
  validate: ValidateFunction;
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
      cached = { schemaText, validate: newAjv().compile(schema) };
      this.cache.set(key, cached);
    }
    if (cached.validate(input)) return;
    const errors = cached.validate.errors ?? [];
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
