/**
 * The docs speak to users: they state the facts, and never send the reader to the
 * project's design notes (its seed files, DESIGN.md), which a user of the package does
 * not have. User code in the docs imports the package by name.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pages = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** References to design notes: "seed 000", "the seed's …", "002_6c84….txt", DESIGN.md. */
const DESIGN_NOTES =
  /\bseeds?\s+\d{3}\b|\bthe seed\b|\bseed's\b|\bin the seed\b|\b\d{3}_[0-9a-f]{8,}\.txt\b|\bDESIGN\.md\b|\bseeds\//i;

describe('user docs', () => {
  it.each(pages)('%s points at no design notes', (page) => {
    const lines = readFileSync(join(ROOT, page), 'utf8').split('\n');
    const found = lines
      .map((line, i) => `${page}:${i + 1}: ${line}`)
      .filter((line) => DESIGN_NOTES.test(line.slice(line.indexOf(': ') + 2)));
    expect(found).toEqual([]);
  });

  it.each(pages)('%s imports the package as weft-engine', (page) => {
    const text = readFileSync(join(ROOT, page), 'utf8');
    expect(text).not.toMatch(/from ['"]weft['"]/);
  });
});
