/**
 * Statements issued together: a transaction's calls that do not depend on each other are
 * issued one after the other without awaiting each, so a store whose connection pipelines
 * (PostgreSQL) sends them in one round trip; the store still runs them in the order they
 * were issued. {@link Issued.settled} awaits them all and throws the first failure.
 *
 * A call that fails while the caller awaits something else is not an unhandled rejection:
 * it is reported by `settled`, or, when the caller fails first, lost with the transaction
 * that is rolled back anyway.
 */
export class Issued {
  private readonly calls: Promise<unknown>[] = [];

  /** Keeps `call` to await with the others; returns it, to read its result once settled. */
  add<T>(call: Promise<T>): Promise<T> {
    call.catch(() => {});
    this.calls.push(call);
    return call;
  }

  /** Awaits every call issued so far; the first that failed (in issue order) is thrown. */
  async settled(): Promise<void> {
    const calls = this.calls.splice(0);
    await Promise.all(calls);
  }
}

/** Resolves to the error `call` fails with (its failure as a value), or undefined. */
export function failureOf(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => undefined,
    (error: unknown) => error ?? new Error(String(error)),
  );
}
