/**
 * What a user reads when `client.start(definition, input)` gets a wrong input: the
 * compiler's own messages, from a program checked against the built package's types
 * (dist/, as an installed package is). A wrong field is reported on that field, naming
 * it, and never as "not assignable to parameter of type 'string'" (the start by name).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Each call on its own line, so a diagnostic's line says which call it is about. */
const FIXTURE = `import { type Client, defineWorkflow, Workflow } from 'weft-engine';

interface Order {
  sku: string;
  qty: number;
}

const order = defineWorkflow(
  'order',
  class extends Workflow {
    async handle(o: Order) {
      return o.qty;
    }
  },
);

export async function starts(client: Client) {
  await client.start(order, { sku: 42, qty: 2 });
  await client.start(order, { sku: 42, qty: '2' });
  await client.start(order, { sku: 'tea' });
  await client.start(order, [{ sku: 'tea', qty: '2' }]);
  await client.start(order, { sku: 'tea', qty: 2, price: 4 });
  await client.start(order, { sku: 'tea', qty: 2 }, { id: 7 });
  await client.start(order, { sku: 'tea', qty: 2 });
  await client.start('order', { sku: 42 });
}
`;

interface Reported {
  line: number;
  /** The source text the error is on. */
  at: string;
  message: string;
  /** The related information's messages ("The expected type comes from property …"). */
  related: string[];
}

let dir: string;
let reported: Reported[];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'weft-start-errors-'));
  const file = join(dir, 'starts.ts');
  writeFileSync(file, FIXTURE);
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node'],
    typeRoots: [join(ROOT, 'node_modules/@types')],
    paths: { 'weft-engine': [join(ROOT, 'dist/index.d.ts')] },
  });
  const text = (d: ts.DiagnosticRelatedInformation) =>
    ts.flattenDiagnosticMessageText(d.messageText, '\n');
  reported = ts.getPreEmitDiagnostics(program).map((d) => {
    expect(d.file?.fileName, text(d)).toBe(file);
    const start = d.start ?? 0;
    return {
      line: (d.file?.getLineAndCharacterOfPosition(start).line ?? 0) + 1,
      at: FIXTURE.slice(start, start + (d.length ?? 0)),
      message: text(d),
      related: (d.relatedInformation ?? []).map(text),
    };
  });
}, 180_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const on = (line: number) => reported.filter((r) => r.line === line);

describe('a wrong input to client.start(definition, …)', () => {
  it('is reported on the wrong field, naming it and the type it should have', () => {
    expect(on(18)).toEqual([
      {
        line: 18,
        at: 'sku',
        message: "Type 'number' is not assignable to type 'string'.",
        related: [
          "The expected type comes from property 'sku' which is declared here on type 'Order'",
        ],
      },
    ]);
    // Two wrong fields: one error on each.
    expect(on(19).map((r) => [r.at, r.related])).toEqual([
      ['sku', [expect.stringContaining("property 'sku'")]],
      ['qty', [expect.stringContaining("property 'qty'")]],
    ]);
  });

  it('names a missing field, a wrong field inside the arguments array, and an unknown one', () => {
    expect(on(20).map((r) => r.message)).toEqual([
      expect.stringContaining("Property 'qty' is missing in type '{ sku: string; }'"),
    ]);
    expect(on(21).map((r) => [r.at, r.related])).toEqual([
      ['qty', [expect.stringContaining("property 'qty'")]],
    ]);
    expect(on(22).map((r) => [r.at, r.message])).toEqual([
      ['price', expect.stringContaining("'price' does not exist in type 'Order'")],
    ]);
    expect(on(23).map((r) => [r.at, r.message])).toEqual([
      ['id', "Type 'number' is not assignable to type 'string'."],
    ]);
  });

  it('never blames the workflow for not being a name, and a right input passes', () => {
    for (const r of reported) {
      expect(r.message).not.toMatch(/No overload|parameter of type 'string'/);
    }
    expect(on(24)).toEqual([]);
    // By name the input is any JSON, as before.
    expect(on(25)).toEqual([]);
    expect(reported.map((r) => r.line)).toEqual([18, 19, 19, 20, 21, 22, 23]);
  });
});
