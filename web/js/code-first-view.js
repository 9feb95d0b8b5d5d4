// A code-first job's engine structure, under the job page's folded "Engine details"
// (its steps lead the page, timeline-view.js): its decision mode, branches with their
// types and triggers, the executions in order, the statuses of its works, its
// properties by execution index, its buffer and its waits.
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
  // The job view's row of each work: its state (running once a worker started it),
  // attempts and times, also for a dispatched work that ends after the job did.
  const rows = new Map(detail.job.activities.map((a) => [a.work, a]));
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
      [
        'name',
        'type',
        'status',
        'waited for',
        'attempts',
        'started',
        'finished',
        'input',
        'output / error',
      ],
      inst.statuses.map((st) => {
        const row = rows.get(st.uuid);
        return h(
          'tr',
          {},
          h('td', {}, st.name),
          h('td', {}, st.type),
          h('td', {}, badge(row?.state ?? st.status)),
          h('td', {}, st.sync ? 'yes' : 'no (dispatched)'),
          h('td', {}, row?.attempts ? String(row.attempts) : ''),
          h('td', {}, row?.startedAt ? when(row.startedAt) : ''),
          h('td', {}, row?.finishedAt ? when(row.finishedAt) : ''),
          h('td.mono', {}, short(st.input)),
          h('td.mono', {}, st.error ? `${st.error.name}: ${st.error.message}` : short(st.output)),
        );
      }),
    ),
    detail.job.activities.some((a) => a.dispatched && a.state === 'failed')
      ? h(
          'p.muted',
          {},
          'A dispatched work that fails does not fail the job: the job does not wait for it.',
        )
      : null,
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
