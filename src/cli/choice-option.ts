/** Options that take one of a few words (`--log-format`, `--order`). */
import { ValidationError } from '../core/errors.js';

/** `value` when it is one of `choices`; else a ValidationError naming `option` and the choices. */
export function oneOf<T extends string>(choices: readonly T[], value: string, option: string): T {
  if (!(choices as readonly string[]).includes(value)) {
    throw new ValidationError(
      `must be one of ${choices.join(', ')}, got ${JSON.stringify(value)}`,
      option,
    );
  }
  return value as T;
}
