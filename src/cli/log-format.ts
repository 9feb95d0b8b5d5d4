/**
 * `--log-format` of the commands that log (`weft worker`, `weft run`, `weft serve`,
 * `weft dashboard`), apart from the logger itself: checking a flag loads no logger.
 */
import { oneOf } from './choice-option.js';

/** The formats of `--log-format`. */
export const LOG_FORMATS = ['pretty', 'json'] as const;

/** One of {@link LOG_FORMATS}. */
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Checks a `--log-format` value. */
export function parseLogFormat(value: string | undefined): LogFormat {
  return oneOf(LOG_FORMATS, value ?? 'pretty', '--log-format');
}
