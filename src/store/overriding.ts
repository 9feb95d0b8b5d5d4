/**
 * A view of a store or a transaction with some of its operations replaced: the way every
 * wrapper around the Store contract (expression settling, commit reports, tracing, a
 * task runner's follow-up appends) sees what its transactions do without changing the
 * backends.
 */

/** `target` with `methods` in place of its own, every other function bound to it. */
export function overriding<T extends object>(
  target: T,
  methods: Readonly<Partial<Record<keyof T, unknown>>>,
): T {
  return new Proxy(target, {
    get(object, property) {
      if (typeof property === 'string' && property in methods) {
        return methods[property as keyof T];
      }
      const value = Reflect.get(object, property);
      return typeof value === 'function' ? value.bind(object) : value;
    },
  });
}
