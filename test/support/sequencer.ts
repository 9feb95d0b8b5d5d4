/**
 * The order vitest starts test files in. Vitest's own sequencer runs the projects in the
 * alphabetical order of their names, which left `unit` for last: its longest files (the
 * packed-package install, the fuzzers) then started when every other file had ended and
 * ran on alone while the other workers sat idle. This one starts `unit` first, so those
 * files run beside the backend files, and keeps vitest's order within each project (the
 * longest or largest files first, failed ones before them).
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const FIRST = ['unit', 'browser', 'postgres', 'sqlite', 'redis'];

function rank(spec: TestSpecification): number {
  const at = FIRST.indexOf(spec.project.name);
  return at < 0 ? FIRST.length : at;
}

export default class UnitFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const place = new Map(sorted.map((spec, at) => [spec, at]));
    return sorted.sort(
      (a, b) => rank(a) - rank(b) || (place.get(a) as number) - (place.get(b) as number),
    );
  }
}
