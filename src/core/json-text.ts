/**
 * JSON text from outside (an HTTP body, `--input`, `--data`) parsed with two promises:
 * nesting deeper than {@link MAX_JSON_DEPTH} is refused before parsing (deep values
 * exhaust the stack of whatever walks them later: schema checks, hashing, stringifying),
 * and an error never quotes the text back (it may hold a secret), only where it broke.
 */
import { ValidationError } from './errors.js';

/** How deeply arrays and objects may nest in JSON weft accepts from outside. */
export const MAX_JSON_DEPTH = 128;

/** Error code of text that is not JSON. */
export const BAD_JSON = 'BAD_JSON';

/** Error code of JSON nested deeper than the limit. */
export const JSON_TOO_DEEP = 'JSON_TOO_DEEP';

/**
 * The deepest nesting of arrays and objects in `text`, counted without recursion (and
 * stopping once past `limit`); brackets inside strings do not count.
 */
export function jsonDepth(text: string, limit = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/**
 * Why JSON.parse refused the text, without the excerpt of it V8 puts in some messages
 * (`Unexpected token 'x', "<text>" is not valid JSON`); a control character is named by
 * its code point.
 */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cut = message.replace(/, ".*" is not valid JSON$/s, '');
  const safe = cut.includes('"') ? cut.slice(0, cut.indexOf('"')).trim() : cut;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: naming them is the point
  return safe.replace(/[\u0000-\u001f\u007f]/g, (ch) => `U+${ch.charCodeAt(0).toString(16)}`);
}

/**
 * Parses JSON text from outside. Refuses, with a {@link ValidationError} at `where`,
 * text that is not JSON (code {@link BAD_JSON}) and nesting past `maxDepth` (code
 * {@link JSON_TOO_DEEP}); neither message quotes the text.
 */
export function parseJsonText(text: string, where: string, maxDepth = MAX_JSON_DEPTH): unknown {
  const depth = jsonDepth(text, maxDepth);
  if (depth > maxDepth) {
    throw new ValidationError(`nests arrays and objects deeper than ${maxDepth} levels`, where, {
      code: JSON_TOO_DEEP,
    });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (cause) {
    throw new ValidationError(`is not valid JSON (${reasonOf(cause)})`, where, {
      code: BAD_JSON,
    });
  }
}
