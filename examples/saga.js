// Handlers for examples/saga.yaml: each step and the step that undoes it. A revert gets
// `{ input, output, error }` of the run it undoes, and logs what it gives back.
const step = (name, output) => async (input) => {
  if (input.fail === name) throw new Error(`${name} failed`);
  return output(input);
};
const undo =
  (name) =>
  async ({ output, error }) => {
    console.log(
      `${name}: undoing ${error ? `a failed run (${error.message})` : JSON.stringify(output)}`,
    );
    return { undone: true };
  };

export default {
  reserve: step('reserve', (input) => ({ hold: `H-${input.sku}` })),
  charge: step('charge', (input) => ({ receipt: `R-${input.amount}` })),
  ship: step('ship', (input) => ({ courier: 'C-7', to: input.to })),
  release: undo('release'),
  refund: undo('refund'),
  unship: undo('unship'),
};
