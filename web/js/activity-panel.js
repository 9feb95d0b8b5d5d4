// The activity panel of a graph job: kind, digit and position, status, attempts, times,
// each thread's record (input, output, error with its stack) and the semaphore, read
// leg by leg; a hook's signal and "Rerun from here" as confirmed actions.

import { actionButton, signalForm } from './actions.js';
import { post } from './api.js';
import { confirmAction } from './confirm.js';
import { badge, fill, h, json, took, when } from './dom.js';

const FINAL = ['SUCCESS', 'FAILURE', 'REVERTED'];

export function renderActivityPanel(panel, detail, selected, navigate) {
  if (!detail.graph || !selected || !detail.graph.activities[selected]) {
    fill(panel, h('p.muted', {}, detail.graph ? 'Click an activity to see it.' : ''));
    panel.hidden = !detail.graph;
    return;
  }
  panel.hidden = false;
  const compiled = detail.graph.activities[selected];
  const row = detail.job.activities.find((a) => a.id === selected);
  const d = detail.digits.find((x) => x.activity === selected);
  const recs = detail.records.filter((r) => r.activity === selected);
  const sems = detail.semaphores.filter((x) => x.activity === selected);
  const running = !FINAL.includes(detail.job.state);
  const rerun = h(
    'button',
    {
      type: 'button',
      'data-action': 'rerun',
      disabled: detail.job.model !== 'graph',
      onclick: () =>
        confirmAction({
          title: `Rerun ${detail.job.id} from ${selected}?`,
          body: [
            h(
              'p',
              {},
              `A new job starts that keeps the results of the activities before ${selected} and runs ${selected} and what follows again.`,
            ),
          ],
          confirm: 'Rerun',
          action: () =>
            post(`/api/jobs/${encodeURIComponent(detail.job.id)}/rerun`, {
              activity: selected,
            }).then((r) => ({ newJob: r.job })),
        }).then((done) => done?.newJob && navigate(`#/job/${encodeURIComponent(done.newJob)}`)),
    },
    'Rerun from here',
  );
  fill(
    panel,
    h('h2', {}, selected, ' ', d ? badge(d.state ?? d.label) : ''),
    h(
      'dl.facts',
      {},
      h('dt', {}, 'kind'),
      h(
        'dd',
        {},
        compiled.kind,
        compiled.task && compiled.task !== selected ? ` (task ${compiled.task})` : '',
        compiled.signal ? ` (signal ${compiled.signal})` : '',
      ),
      h('dt', {}, 'digit'),
      h(
        'dd',
        {},
        d ? `${d.digit} (${d.label}) at position ${d.position}` : '—',
        d?.failure === 'unhandled' ? h('strong.failmark', {}, ' ✕ failed: nothing took it') : '',
        d?.failure === 'handled' ? h('strong.failmark', {}, ' ✕ failed, handled') : '',
      ),
      h('dt', {}, 'status'),
      h('dd', {}, row?.status ?? '—'),
      h('dt', {}, 'attempts'),
      h('dd', {}, String(row?.attempts ?? 0)),
      h('dt', {}, 'started'),
      h('dd', {}, when(row?.startedAt)),
      h('dt', {}, 'finished'),
      h(
        'dd',
        {},
        row?.finishedAt ? `${when(row.finishedAt)} (${took(row.startedAt, row.finishedAt)})` : '—',
      ),
    ),
    h(
      'div.actions',
      {},
      compiled.kind === 'hook' && running ? hookButton(detail, compiled, navigate) : '',
      rerun,
    ),
    row?.error
      ? h(
          'div.errorbox',
          {},
          h('strong', {}, `${row.error.name}: ${row.error.message}`),
          row.error.stack ? h('pre', {}, row.error.stack) : '',
        )
      : '',
    sems.length
      ? [
          h('h3', {}, 'Semaphore'),
          h(
            'table.sem',
            {},
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['thread', 'value', 'L1 in', 'L1 out', 'Leg2', 'in', 'out'].map((c) =>
                  h('th', {}, c),
                ),
              ),
            ),
            h(
              'tbody',
              {},
              sems.map((x) =>
                h(
                  'tr',
                  { title: x.reading },
                  h('td', {}, x.dimension || '—'),
                  h('td.mono', {}, x.value),
                  h('td', {}, String(x.leg1Entry ?? '')),
                  h('td', {}, String(x.leg1Exit ?? '')),
                  h('td', {}, x.leg2Exit === 9 ? 'open' : x.leg2Exit === 8 ? 'closed' : ''),
                  h('td', {}, String(x.leg2Entries ?? '')),
                  h('td', {}, String(x.leg2Exits ?? '')),
                ),
              ),
            ),
          ),
          sems.map((x) =>
            h('p.muted.small', {}, `${x.dimension ? `thread ${x.dimension}: ` : ''}${x.reading}`),
          ),
        ]
      : '',
    recs.map((r) =>
      h(
        'details.record',
        { open: recs.length === 1 },
        h(
          'summary',
          {},
          recs.length > 1 ? `thread ${r.dimension || '(first)'}` : 'record',
          ' ',
          badge(r.status),
          ` attempt ${r.attempt}`,
        ),
        h('h4', {}, 'input'),
        json(r.input),
        h('h4', {}, 'output'),
        json(r.output),
        r.error
          ? [
              h('h4', {}, 'error'),
              h(
                'pre.errorpre',
                {},
                `${r.error.name}: ${r.error.message}${r.error.stack ? `\n${r.error.stack}` : ''}`,
              ),
            ]
          : '',
      ),
    ),
    recs.length === 0 ? h('p.muted', {}, 'Not run yet.') : '',
  );
}

function hookButton(detail, compiled, navigate) {
  const form = signalForm(detail.job.id, compiled.signal ?? compiled.id, 'signal');
  return actionButton(
    `Signal ${compiled.signal ?? compiled.id}`,
    `Send signal ${compiled.signal ?? compiled.id} to ${detail.job.id}`,
    form.run,
    { body: form.body, navigate },
  );
}
