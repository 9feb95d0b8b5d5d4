/**
 * The log lines `weft worker`, `weft run` and `weft serve` write to stderr, through pino:
 * `--log-format json` writes one JSON object a line (`level` as a word, ISO `time`,
 * `msg`, and the line's fields — `task`, `job`, `activity`, `attempt`, `error` with its
 * name, message and stack), `pretty` (the default) a readable line per message (which
 * names the task, job and attempt) and the error below it, via pino-pretty.
 */
import { pino } from 'pino';
import { PinoPretty } from 'pino-pretty';
import { ValidationError } from '../core/errors.js';
import type { ErrorRecord } from '../store/records.js';
import type { LogFields, WorkerLogger } from '../worker/worker-options.js';

/** The formats of `--log-format`. */
export const LOG_FORMATS = ['pretty', 'json'] as const;

/** One of {@link LOG_FORMATS}. */
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Checks a `--log-format` value. */
export function parseLogFormat(value: string | undefined): LogFormat {
  const format = value ?? 'pretty';
  if (!(LOG_FORMATS as readonly string[]).includes(format)) {
    throw new ValidationError(
      `must be one of ${LOG_FORMATS.join(', ')}, got ${JSON.stringify(format)}`,
      '--log-format',
    );
  }
  return format as LogFormat;
}

/** A worker logger writing to stderr in `format`. */
export function createCliLogger(format: LogFormat): WorkerLogger {
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
            // The message already names these; the error (with its stack) stays.
            ignore:
              'task,tasks,unserved,messages,waitingSince,job,activity,dimension,attempt,workflow,version,state,durationMs',
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
