/**
 * A transaction the store aborted as a conflict (a PostgreSQL deadlock: it changed
 * nothing) is run again by the client's commands, a few times; any other failure, or a
 * conflict that keeps coming, is the caller's.
 */
import { describe, expect, it } from 'vitest';
import { StoreError, ValidationError } from '../../src/core/errors.js';
import { CONFLICT_TRIES, retryingConflicts } from '../../src/store/conflict-retry.js';

const conflict = () =>
  new StoreError('PostgreSQL aborted the transaction (deadlock detected, 40P01)', {
    code: 'STORE_CONFLICT',
  });

describe('retryingConflicts', () => {
  it('runs a transaction again after a conflict, and returns what the run that worked returned', async () => {
    let runs = 0;
    const result = await retryingConflicts(async () => {
      runs++;
      if (runs < 3) throw conflict();
      return 'committed';
    });
    expect({ result, runs }).toEqual({ result: 'committed', runs: 3 });
  });

  it('gives up after a few tries with the conflict itself', async () => {
    let runs = 0;
    const failed = await retryingConflicts(async () => {
      runs++;
      throw conflict();
    }).catch((e) => e);
    expect(failed).toMatchObject({ code: 'STORE_CONFLICT' });
    expect(runs).toBe(CONFLICT_TRIES);
  });

  it('does not run again after any other failure', async () => {
    let runs = 0;
    const failed = await retryingConflicts(async () => {
      runs++;
      throw new ValidationError('bad input');
    }).catch((e) => e);
    expect(failed).toBeInstanceOf(ValidationError);
    expect(runs).toBe(1);
  });
});
