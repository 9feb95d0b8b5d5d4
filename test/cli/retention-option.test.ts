/** `weft worker --retention` and `weft prune --state`, as their parsers read them. */
import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { endStatesOption, retentionOption } from '../../src/cli/retention-option.js';
import { checkRetention } from '../../src/graph/retention.js';

describe('--retention', () => {
  it('takes one value for every end state, or state=duration pairs', () => {
    expect(retentionOption('30d')).toBe('30d');
    expect(retentionOption('forever')).toBe('forever');
    expect(retentionOption('60000')).toBe(60_000);
    const pairs = retentionOption('failed=forever', retentionOption('succeeded=7d,reverted=1h'));
    expect(pairs).toEqual({ succeeded: '7d', reverted: '1h', failed: 'forever' });
    expect(checkRetention(pairs, 'worker')).toEqual({
      SUCCESS: 7 * 86_400_000,
      FAILURE: null,
      REVERTED: 3_600_000,
    });
  });

  it('refuses what is no retention', () => {
    for (const bad of ['0', 'soon', 'done=1d', 'succeeded=0ms', 'succeeded=']) {
      expect(() => retentionOption(bad), bad).toThrow(InvalidArgumentError);
    }
  });
});

describe('--state', () => {
  it('takes end state names, comma-separated or again', () => {
    expect(endStatesOption('succeeded,failed')).toEqual(['SUCCESS', 'FAILURE']);
    expect(endStatesOption('REVERTED', ['SUCCESS'])).toEqual(['SUCCESS', 'REVERTED']);
    expect(() => endStatesOption('running')).toThrow(/succeeded, failed, reverted/);
  });
});
