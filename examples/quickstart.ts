// The quickstart (docs/quickstart.md): open a store, run a worker, start jobs with a
// client and read their results, all in one process. Run it with
//
//   npx tsx examples/quickstart.ts
//
// It uses the embedded SQLite store (./.weft/weft.db) unless WEFT_STORE names another,
// e.g. WEFT_STORE=postgres://user:secret@localhost:5432/weft.
import {
  Client,
  defineHandlers,
  defineTask,
  defineWorkflow,
  openStore,
  Worker,
  Workflow,
  workflow,
} from 'weft-engine';

// 1. Tasks: plain async functions with JSON input and output. They do the I/O.
const reserve = defineTask('reserve', async (input: { sku: string; qty: number }) => ({
  reserved: input.qty,
  shelf: `${input.sku}-A1`,
}));
const charge = defineTask('charge', async (input: { amount: number }) => ({
  receipt: `R-${input.amount}`,
}));

// 2. A code-first workflow: its handle() calls tasks; weft records every step, so a job
//    resumes where it was after a crash or a restart.
const order = defineWorkflow(
  'order',
  class extends Workflow {
    async handle(request: { sku: string; qty: number; price: number }) {
      const stock = await this.execute(reserve, { sku: request.sku, qty: request.qty });
      const { receipt } = await this.execute(charge, { amount: request.qty * request.price });
      return { shelf: stock.shelf, receipt };
    }
  },
);

// 3. A graph workflow, built in code (the same thing a YAML file describes). Its task
//    runs the handler of the same name given to the worker below.
const greeting = workflow('greeting')
  .trigger('start')
  .task('greet', { input: "{ 'name': input.name }" })
  .transition('start', 'greet')
  .output("{ 'text': greet.output }")
  .compile();
const handlers = defineHandlers({
  greet: async (input: { name: string }) => `Hello, ${input.name}!`,
});

// 4. Open the store, start a worker, start jobs with a client and wait for their results.
const store = await openStore(process.env.WEFT_STORE);
const worker = new Worker({ store, workflows: [order], tasks: [reserve, charge], handlers });
await worker.start();
try {
  const client = new Client(store);
  await client.deploy(greeting);

  const job = await client.start(order, { sku: 'tea', qty: 2, price: 4 });
  const done = await client.result(job, { wait: true, timeoutMs: 30_000 });
  console.log(done.state, done.output?.receipt); // SUCCESS R-8  (output is typed)

  const hello = await client.start('greeting', { name: 'Ana' });
  const greeted = await client.result(hello.id, { wait: true, timeoutMs: 30_000 });
  console.log(greeted.state, JSON.stringify(greeted.output)); // SUCCESS {"text":"Hello, Ana!"}
} finally {
  await worker.stop();
  await store.close();
}
