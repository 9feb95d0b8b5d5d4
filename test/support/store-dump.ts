/**
 * A text dump of everything a store holds, read behind the Store's back: every table's
 * rows (each as JSON, sorted) and every sequence's position, on SQLite and PostgreSQL
 * alike. Two dumps are equal exactly when nothing was written in between — which is
 * how the bad-input tests show a refused request changed nothing.
 */
import Database from 'better-sqlite3';
import { parseStoreUrl } from '../../src/store/url.js';

const asText = (value: unknown) =>
  JSON.stringify(value, (_, v) =>
    typeof v === 'bigint' ? `${v}n` : Buffer.isBuffer(v) ? v.toString('hex') : v,
  );

/** The dump of the store at `url`. */
export async function dumpStore(url: string): Promise<string> {
  const parsed = parseStoreUrl(url);
  const tables: Record<string, string[]> = {};
  if (parsed.dialect === 'sqlite') {
    const db = new Database(parsed.path, { readonly: true });
    try {
      db.defaultSafeIntegers(true);
      const names = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .all() as { name: string }[];
      for (const { name } of names) {
        const rows = db.prepare(`SELECT * FROM "${name.replace(/"/g, '""')}"`).all();
        tables[name] = rows.map(asText).sort();
      }
    } finally {
      db.close();
    }
  } else {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: parsed.connectionString });
    await client.connect();
    try {
      const names = await client.query<{ name: string }>(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
      );
      for (const { name } of names.rows) {
        const rows = await client.query<{ row: string }>(
          `SELECT row_to_json(t)::text AS row FROM "${name}" t`,
        );
        tables[name] = rows.rows.map((r) => r.row).sort();
      }
      const sequences = await client.query<{ name: string }>(
        "SELECT sequence_name AS name FROM information_schema.sequences WHERE sequence_schema = 'public' ORDER BY 1",
      );
      for (const { name } of sequences.rows) {
        const at = await client.query(`SELECT last_value, is_called FROM "${name}"`);
        tables[`sequence ${name}`] = at.rows.map(asText);
      }
    } finally {
      await client.end();
    }
  }
  return Object.entries(tables)
    .map(([name, rows]) => `-- ${name} (${rows.length})\n${rows.join('\n')}`)
    .join('\n');
}
