// Handlers for examples/quick-brown-fox.yaml: the default export maps task names to
// async (input, ctx) => output. `slept` sends the `fed` signal that releases the `ate`
// hook (a signal sent before its hook waits is kept), so the job runs to its end alone,
// unless the job input says `"feed": "by-hand"`: then the job waits at `ate` for you to
// send `fed` (`weft signal <job> fed --data '{"dish":"figs"}'`).
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export default {
  async brown(input) {
    await pause(150);
    return { color: input.color };
  },
  async fox(input) {
    await pause(150);
    return { path: input.path };
  },
  async jumped() {
    await pause(150);
    return { height: 'high' };
  },
  async slept(input, ctx) {
    await pause(150);
    if (input.feed !== 'by-hand') await ctx.sendSignal('fed', { dish: 'grapes' });
    return { hours: 8 };
  },
};
