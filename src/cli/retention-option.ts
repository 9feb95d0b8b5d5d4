/**
 * The parser of `weft worker --retention` (commander's `argParser`): `30d` or `forever`
 * for every end state, or `state=duration` pairs (`succeeded=7d,failed=30d`, or the flag
 * again) — checked as a workflow file's `retention:` is, refused before the command runs
 * (exit 2) when wrong. Also `weft prune --state`.
 */
import { InvalidArgumentError } from 'commander';
import { type FinalState, finalStateOf, RETENTION_STATES } from '../core/retention.js';
import type { RetentionOption } from '../graph/retention.js';
import { retentionProblems } from '../graph/retention.js';

/** `--retention` as a {@link RetentionOption}; the flag again adds states. */
export function retentionOption(value: string, previous?: RetentionOption): RetentionOption {
  const text = value.trim();
  const parsed: RetentionOption = text.includes('=')
    ? {
        ...(typeof previous === 'object' ? previous : {}),
        ...Object.fromEntries(
          text.split(',').map((pair) => {
            const [state = '', duration = ''] = pair.split('=').map((p) => p.trim());
            return [state, /^\d+$/.test(duration) ? Number(duration) : duration];
          }),
        ),
      }
    : ((/^\d+$/.test(text) ? Number(text) : text) as RetentionOption);
  const [problem] = retentionProblems(parsed);
  if (problem) {
    throw new InvalidArgumentError(
      `${problem.path.length > 0 ? `${problem.path.join('.')}: ` : ''}${problem.message} (such as 30d, forever, or succeeded=7d,failed=30d).`,
    );
  }
  return parsed;
}

/** `--state` as end states: names (`succeeded`, `failed`, `reverted`), comma-separated or again. */
export function endStatesOption(value: string, previous: FinalState[] = []): FinalState[] {
  const states = [...previous];
  for (const name of value.split(',')) {
    const state = finalStateOf(name);
    if (!state) {
      throw new InvalidArgumentError(
        `Expected an end state: ${Object.keys(RETENTION_STATES).join(', ')} (got ${JSON.stringify(name.trim())}).`,
      );
    }
    if (!states.includes(state)) states.push(state);
  }
  return states;
}
