// A code-first job's structure: its decision mode, branches with their types and
// triggers, the executions in order, the statuses of its works, its properties by
// execution index, its buffer and its waits.
import { badge, fill, h, json, when } from './dom.js';

export function renderCodeFirst(codeFirst, detail) {
  const inst = detail.job.instance;
  if (detail.job.model !== 'durable') {
    fill(codeFirst);
    return;
  }
  if (!inst) {
    fill(codeFirst, h('p.muted', {}, 'No worker with its code has run it yet.'));
    return;
  }
  const table = (cols, rows) =>
    h(
      'table',
      {},
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          cols.map((c) => h('th', {}, c)),
        ),
      ),
      h('tbody', {}, rows),
    );
  const short = (v) => (v === undefined ? '' : JSON.stringify(v).slice(0, 120));
  fill(
    codeFirst,
    h(
      'h3',
      {},
      `Decision mode: ${inst.decision_mode}${inst.decision_ongoing ? ' (a decision is under way)' : ''}`,
    ),
    h('h3', {}, 'Branches'),
    table(
      ['key', 'type', 'trigger', 'ended', 'output'],
      inst.branches.map((b, i) =>
        h(
          'tr',
          {},
          h('td', {}, String(i)),
          h('td', {}, badge(b.type)),
          h('td', {}, b.event_name ?? b.task_name ?? (b.type === 'handle' ? short(b.input) : '')),
          h('td', {}, b.ended ? 'yes' : 'no'),
          h('td.mono', {}, short(b.output)),
        ),
      ),
    ),
    h('h3', {}, 'Executions'),
    h(
      'ol.executions',
      { start: 0 },
      inst.executions.map((key) =>
        h('li', {}, `branch ${key} (${inst.branches[key]?.type ?? '?'})`),
      ),
    ),
    h('h3', {}, 'Works'),
    table(
      ['name', 'type', 'status', 'waited for', 'input', 'output / error'],
      inst.statuses.map((st) =>
        h(
          'tr',
          {},
          h('td', {}, st.name),
          h('td', {}, st.type),
          h('td', {}, badge(st.status)),
          h('td', {}, st.sync ? 'yes' : 'no'),
          h('td.mono', {}, short(st.input)),
          h('td.mono', {}, st.error ? `${st.error.name}: ${st.error.message}` : short(st.output)),
        ),
      ),
    ),
    h('h3', {}, 'Properties by execution index'),
    table(
      ['from execution', 'values'],
      inst.properties.map((p) =>
        h('tr', {}, h('td', {}, String(p.key)), h('td', {}, json(p.values))),
      ),
    ),
    h('h3', {}, 'Buffer'),
    inst.buffer.length
      ? table(
          ['seq', 'type', 'data'],
          inst.buffer.map((b) =>
            h(
              'tr',
              {},
              h('td', {}, String(b.seq)),
              h('td', {}, b.type),
              h('td.mono', {}, short(b.data)),
            ),
          ),
        )
      : h('p.muted', {}, 'empty'),
    h('h3', {}, 'Waits'),
    inst.waits.length
      ? table(
          ['event', 'until'],
          inst.waits.map((w) =>
            h(
              'tr',
              {},
              h('td', {}, w.event ?? '—'),
              h('td', {}, w.timestamp ? when(new Date(w.timestamp).toISOString()) : '—'),
            ),
          ),
        )
      : h('p.muted', {}, 'none'),
  );
}
