/**
 * A view of a store or a transaction with some of its operations replaced: the way every
 * wrapper around the Store contract (expression settling, commit reports, tracing, a
 * task runner's follow-up appends) sees what its transactions do without changing the
 * backends.
 */

/**
 * `target` with `methods` in place of its own, every other function bound to it. With
 * `before`, every other function first awaits it (a batch that buffers writes applies
 * them before an operation it does not answer itself), and so returns a promise.
 */
export function overriding<T extends object>(
  target: T,
  methods: Readonly<Partial<Record<keyof T, unknown>>>,
  before?: () => Promise<void>,
): T {
  return new Proxy(target, {
    get(object, property) {
      if (typeof property === 'string' && property in methods) {
        return methods[property as keyof T];
      }
      const value = Reflect.get(object, property);
      if (typeof value !== 'function') return value;
      if (!before) return value.bind(object);
      return async (...args: unknown[]) => {
        await before();
        return value.apply(object, args);
      };
    },
  });
}
