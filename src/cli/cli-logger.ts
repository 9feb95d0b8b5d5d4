/**
 * The log lines `weft worker`, `weft run` and `weft serve` write to stderr, through pino:
 * `--log-format json` writes one JSON object a line (`level` as a word, ISO `time`,
 * `msg`, and the line's fields — `task`, `job`, `activity`, `attempt`, `error` with its
 * name, message and stack), `pretty` (the default) one readable line per message, which
 * names the task, job and attempt and ends with the error's name and message. A pretty
 * line adds the error's stack below it only at level error (a job that failed, a loop
 * that failed) or with `verbose`: a failed attempt the engine retries is one line.
 */

import { pino } from 'pino';
import { PinoPretty } from 'pino-pretty';
import type { ErrorRecord } from '../store/records.js';
import type { LogFields, WorkerLogger } from '../worker/worker-options.js';
import type { LogFormat } from './log-format.js';

/** How {@link createCliLogger} writes. */
export interface CliLoggerOptions {
  /** Pretty lines: every error's stack, warnings' too (`--verbose`). */
  verbose?: boolean;
}

/** pino's number for level error. */
const ERROR_LEVEL = 50;

/**
 * A pretty line's text: the message, then `: Name: message` of its error (unless the
 * message already ends with it), then the error's stack frames when `stack` says so.
 */
export function prettyMessage(
  message: string,
  error: ErrorRecord | undefined,
  stack: boolean,
): string {
  if (!error) return message;
  const summary = `${error.name}: ${error.message}`;
  const text = message.endsWith(error.message) ? message : `${message}: ${summary}`;
  if (!stack || typeof error.stack !== 'string') return text;
  const frames = error.stack
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .map((line) => `    ${line.trim()}`);
  return [text, ...frames].join('\n');
}

/** A worker logger writing to stderr in `format`. */
export function createCliLogger(format: LogFormat, options: CliLoggerOptions = {}): WorkerLogger {
  const log =
    format === 'json'
      ? pino(
          {
            timestamp: pino.stdTimeFunctions.isoTime,
            formatters: { level: (label) => ({ level: label }) },
          },
          pino.destination({ fd: 2, sync: true }),
        )
      : pino(
          { base: null },
          PinoPretty({
            destination: 2,
            sync: true,
            colorize: Boolean(process.stderr.isTTY),
            translateTime: 'SYS:HH:MM:ss.l',
            // The message names these, and the error ends the line (see prettyMessage).
            ignore:
              'task,tasks,unserved,messages,waitingSince,job,activity,dimension,attempt,workflow,version,state,durationMs,error',
            messageFormat: (log, messageKey) =>
              prettyMessage(
                String(log[messageKey] ?? ''),
                log.error as ErrorRecord | undefined,
                Boolean(options.verbose) || Number(log.level) >= ERROR_LEVEL,
              ),
          }),
        );
  const line = (fields: LogFields | undefined, error: ErrorRecord | undefined) => ({
    ...fields,
    ...(error ? { error } : {}),
  });
  return {
    error: (message, error, fields) => log.error(line(fields, error), message),
    warn: (message, error, fields) => log.warn(line(fields, error), message),
    info: (message, fields) => log.info(line(fields, undefined), message),
  };
}
