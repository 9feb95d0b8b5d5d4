/** JSON text from outside: a depth limit checked without recursion, and errors that quote nothing. */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/core/errors.js';
import { jsonDepth, MAX_JSON_DEPTH, parseJsonText } from '../../src/core/json-text.js';

const nested = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;

describe('parseJsonText', () => {
  it('counts nesting, not brackets inside strings, and stops early past a limit', () => {
    expect(jsonDepth('1')).toBe(0);
    expect(jsonDepth('{"a":[1,{"b":[]}]}')).toBe(4);
    expect(jsonDepth('["[[[[", "\\"[[["]')).toBe(1);
    expect(jsonDepth(nested(1_000_000), 10)).toBe(11);
  });

  it('parses JSON up to the limit and refuses deeper nesting as JSON_TOO_DEEP', () => {
    expect(parseJsonText(nested(MAX_JSON_DEPTH), 'body')).toBeInstanceOf(Array);
    for (const depth of [MAX_JSON_DEPTH + 1, 9_000, 1_000_000]) {
      const refused = () => parseJsonText(nested(depth), 'body');
      expect(refused).toThrow(ValidationError);
      expect(refused).toThrow(
        `body: nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`,
      );
      try {
        refused();
      } catch (error) {
        expect((error as ValidationError).code).toBe('JSON_TOO_DEEP');
      }
    }
  });

  it('says where JSON broke without quoting it', () => {
    const secret = 'card-4111-1111-1111-1111';
    for (const text of [
      `{"card":"${secret}" oops}`,
      `${secret}`,
      `"${secret}`,
      `{"card":"${secret}"}}`,
      `\u0001${secret}`,
      `{"card": ${secret}}`,
    ]) {
      try {
        parseJsonText(text, '--input');
        expect.unreachable(text);
      } catch (error) {
        const e = error as ValidationError;
        expect(e.code).toBe('BAD_JSON');
        expect(e.message).toMatch(/^--input: is not valid JSON \(/);
        expect(e.message).not.toContain('4111');
        // biome-ignore lint/suspicious/noControlCharactersInRegex: none may be echoed
        expect(e.message).not.toMatch(/[\u0000-\u001f]/);
      }
    }
  });
});
