// Handlers for examples/orders-crossflow.yaml: `price` runs once per order line (each in
// its own thread), `wrap` once per gift line, `note` once with [] or [wrapped sku].
const PRICES = { tea: 4, cups: 12, pot: 30 };

export default {
  async price(input) {
    return { line: input.line, sku: input.sku, total: (PRICES[input.sku] ?? 1) * input.qty };
  },
  async wrap(sku) {
    return `${sku} wrapped`;
  },
  async note(found) {
    return found.length === 0 ? 'no gift to wrap' : `gift: ${found[0]}`;
  },
  async report(input) {
    const sum = input.prices.reduce((total, p) => total + p.total, 0);
    return { lines: input.prices.length, sum, note: input.note };
  },
};
