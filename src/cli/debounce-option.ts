/**
 * `weft start`'s debounce flags as a start's `debounce` option: `--debounce-key` with
 * `--debounce-delay`, and optionally `--debounce-max` and `--debounce-mode`.
 */
import { DEBOUNCE_MODES } from '../client/debounce-modes.js';
import type { DebounceOption } from '../client/debounced-start.js';
import { ValidationError } from '../core/errors.js';
import { oneOf } from './choice-option.js';

/** The debounce the flags ask for; undefined without `--debounce-key`. */
export function debounceOption(opts: Record<string, unknown>): DebounceOption | undefined {
  const { debounceKey: key, debounceDelay: delayMs, debounceMax, debounceMode } = opts;
  if (key === undefined) {
    if (delayMs !== undefined || debounceMax !== undefined || debounceMode !== undefined) {
      throw new ValidationError(
        'needs --debounce-key',
        '--debounce-delay, --debounce-max, --debounce-mode',
      );
    }
    return undefined;
  }
  if (delayMs === undefined) {
    throw new ValidationError(
      'needs --debounce-delay (how long its window stays open: 5s, 1m…)',
      '--debounce-key',
    );
  }
  return {
    key: key as string,
    delayMs: delayMs as number,
    ...(debounceMax !== undefined && { maxDelayMs: debounceMax as number }),
    ...(debounceMode !== undefined && {
      mode: oneOf(DEBOUNCE_MODES, debounceMode as string, '--debounce-mode'),
    }),
  };
}
