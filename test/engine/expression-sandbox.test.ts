/**
 * The expression sandbox: child processes that evaluate under a hard time, memory and
 * result-size limit. A limit fails that one request with a typed error naming the limit,
 * and the next request is answered by a fresh process; the parent never goes down.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ExpressionError, ExpressionLimitError, ValidationError } from '../../src/core/errors.js';
import { ExpressionSandbox } from '../../src/engine/expression-sandbox.js';

// Small limits, so that each is reached fast.
const sandbox = new ExpressionSandbox({ timeMs: 1_000, memoryMb: 64, resultMb: 1 }, 2);
afterAll(() => sandbox.close());

const data = { s: `${'a'.repeat(31)}b`, items: [3, 1, 2] };

describe('ExpressionSandbox', () => {
  it('evaluates, and reports a failing expression as an ExpressionError naming where it is', async () => {
    expect(await sandbox.evaluate('$sort(items)', data, 'here', 0)).toEqual([1, 2, 3]);
    expect(await sandbox.evaluate('$now()', data, 'here', Date.UTC(2030, 0, 1))).toBe(
      '2030-01-01T00:00:00.000Z',
    );
    const failed = await sandbox
      .evaluate("$number('x')", data, 'activity a (input)', 0)
      .catch((e) => e);
    expect(failed).toBeInstanceOf(ExpressionError);
    expect(failed).not.toBeInstanceOf(ExpressionLimitError);
    expect(failed.message).toMatch(/^activity a \(input\): expression "\$number\('x'\)" failed/);
  });

  it('stops a catastrophic regular expression at the time limit, then answers the next request', async () => {
    const stopped = await sandbox
      .evaluate('$contains(s, /^(a+)+$/)', data, 'activity a (input)', 0)
      .catch((e) => e);
    expect(stopped).toBeInstanceOf(ExpressionLimitError);
    expect(stopped).toMatchObject({ code: 'EXPRESSION_LIMIT', limit: 'time', value: 1_000 });
    expect(stopped.message).toContain('time limit of 1000 ms');
    expect(await sandbox.evaluate('$count(items)', data, 'here', 0)).toBe(3);
  });

  it('stops an allocation past the memory limit without harming this process', async () => {
    const stopped = await sandbox.evaluate('$sort([1..10000000])', data, 'x', 0).catch((e) => e);
    expect(stopped).toBeInstanceOf(ExpressionLimitError);
    expect(['memory', 'time']).toContain(stopped.limit);
    expect(await sandbox.evaluate('$sum(items)', data, 'here', 0)).toBe(6);
  });

  it('refuses a result larger than the size limit', async () => {
    const stopped = await sandbox.evaluate('$pad("x", 2000000)', data, 'x', 0).catch((e) => e);
    expect(stopped).toMatchObject({ limit: 'size', value: 1 });
  });

  it('runs requests side by side, each under its own limit', async () => {
    const answers = await Promise.allSettled([
      sandbox.evaluate('$contains(s, /^(a+)+$/)', data, 'slow', 0),
      sandbox.evaluate('$reverse(items)', data, 'fast', 0),
      sandbox.evaluate('$max(items)', data, 'fast', 0),
    ]);
    expect(answers[0]).toMatchObject({ status: 'rejected', reason: { limit: 'time' } });
    expect(answers[1]).toEqual({ status: 'fulfilled', value: [2, 1, 3] });
    expect(answers[2]).toEqual({ status: 'fulfilled', value: 3 });
  });

  it('checks a job input against a schema, stopping a backtracking pattern at the time limit', async () => {
    const schema = { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' } } };
    await expect(sandbox.checkInput('w', 1, schema, { s: 'aaa' })).resolves.toBeUndefined();
    const wrong = await sandbox.checkInput('w', 1, schema, { s: 1 }).catch((e) => e);
    expect(wrong).toBeInstanceOf(ValidationError);
    expect(wrong).toMatchObject({ code: 'INVALID_JOB_INPUT', where: 'input.s' });
    const stopped = await sandbox.checkInput('w', 1, schema, data).catch((e) => e);
    expect(stopped).toMatchObject({ code: 'INPUT_CHECK_LIMIT', where: 'input' });
  });

  it('fails every waiting request at once, naming the missing file, when its child cannot start', async () => {
    // weft bundled into one file (the child's entry left behind): no hang, no spawn storm.
    const dir = mkdtempSync(join(tmpdir(), 'weft-bundled-'));
    try {
      const esbuild = await import('esbuild');
      const outfile = join(dir, 'bundled.mjs');
      await esbuild.build({
        entryPoints: [join(import.meta.dirname, '../../src/engine/expression-sandbox.ts')],
        outfile,
        bundle: true,
        platform: 'node',
        format: 'esm',
        packages: 'external',
        logLevel: 'error',
      });
      const bundled = (await import(pathToFileURL(outfile).href)) as {
        ExpressionSandbox: typeof ExpressionSandbox;
      };
      const lost = new bundled.ExpressionSandbox({ timeMs: 1_000, memoryMb: 64, resultMb: 1 }, 2);
      const failures = await Promise.all(
        [1, 2, 3].map((n) => lost.evaluate(`${n} + 1`, data, 'here', 0).catch((e) => e)),
      );
      for (const failure of failures) {
        expect(failure).toMatchObject({ code: 'EXPRESSION_HOST' });
        expect(failure.message).toContain(`${join(dir, 'expression-host.js')} is missing`);
      }
      lost.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
