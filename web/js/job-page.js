// One job, live. A graph job: its graph coloured by digit, the collation key under it
// with each digit under its activity, its child jobs, an activity panel (input, output,
// error with stack, attempts, times, every thread's record, the semaphore read the
// seed-001 way). A code-first job: branches with their types, the executions, the
// statuses of works, properties by execution index, the buffer and what it waits for.
// Actions (signal or event, cancel, pause, resume, rerun from an activity) each confirm.
import { get, post, stream } from './api.js';
import { confirmAction } from './confirm.js';
import { badge, fill, h, json, took, when } from './dom.js';
import { drawGraph, keyStrip } from './graph.js';

const FINAL = ['SUCCESS', 'FAILURE', 'REVERTED'];

export function jobPage(root, id, params, { setLive, navigate }) {
  let detail = null;
  let selected = params.get('activity') ?? null;
  let drawn = null;
  let drawing = null;
  const history = [];

  const head = h('div.jobhead');
  const waits = h('ul.waits');
  const graphBox = h('div.graphbox');
  const keyBox = h('div.keybox');
  const children = h('div.children');
  const panel = h('aside.panel');
  const codeFirst = h('div.codefirst');
  const historyBody = h('tbody');
  const main = h('section.jobmain', {}, graphBox, keyBox, children, codeFirst);
  const grid = h('div.jobgrid', {}, main, panel);
  fill(
    root,
    head,
    waits,
    grid,
    h(
      'details.history',
      {},
      h('summary', {}, 'History'),
      h(
        'table',
        {},
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['#', 'Step', 'Activity', 'Thread', 'Change', 'At', 'Worker'].map((c) =>
              h('th', {}, c),
            ),
          ),
        ),
        historyBody,
      ),
    ),
  );

  const select = (activity) => {
    selected = activity;
    drawn?.select(activity);
    render();
  };

  function action(label, title, run, { body = [], danger = false, disabled = false } = {}) {
    return h(
      `button${danger ? '.danger' : ''}`,
      {
        type: 'button',
        disabled,
        'data-action': label.toLowerCase().split(' ')[0],
        onclick: async () => {
          const done = await confirmAction({ title, body, confirm: label, action: run });
          if (done?.newJob) navigate(`#/job/${encodeURIComponent(done.newJob)}`);
        },
      },
      label,
    );
  }

  function signalForm(defaultName, kind) {
    const name = h('input', { name: 'signal-name', value: defaultName ?? '', required: true });
    const data = h('textarea', { name: 'signal-data', rows: 4 }, '{}');
    return {
      body: [h('label.field', {}, `${kind} name`, name), h('label.field', {}, 'data (JSON)', data)],
      run: async () => {
        let value;
        try {
          value = data.value.trim() === '' ? null : JSON.parse(data.value);
        } catch (e) {
          throw new Error(`data is not JSON: ${e.message}`);
        }
        return post(`/api/jobs/${encodeURIComponent(id)}/${kind}`, {
          name: name.value,
          data: value,
        });
      },
    };
  }

  function renderHead() {
    const job = detail.job;
    const running = !FINAL.includes(job.state);
    const hooks = detail.graph
      ? Object.values(detail.graph.activities).filter((a) => a.kind === 'hook')
      : [];
    const signal = signalForm(
      hooks[0]?.signal ?? hooks[0]?.id ?? '',
      job.model === 'graph' ? 'signal' : 'event',
    );
    fill(
      head,
      h(
        'div.titlebar',
        {},
        h('h1', {}, h('span.mono', {}, job.id), ' ', badge(job.state)),
        h(
          'div.actions',
          {},
          action(
            job.model === 'graph' ? 'Signal' : 'Event',
            `Send a ${job.model === 'graph' ? 'signal' : 'event'} to ${job.id}`,
            signal.run,
            { body: signal.body, disabled: !running },
          ),
          action(
            'Pause',
            `Pause ${job.id}?`,
            () => post(`/api/jobs/${encodeURIComponent(id)}/pause`),
            { disabled: !running },
          ),
          action(
            'Resume',
            `Resume ${job.id}?`,
            () => post(`/api/jobs/${encodeURIComponent(id)}/resume`),
            { disabled: !running },
          ),
          action(
            'Cancel',
            `Cancel ${job.id}? It ends in FAILURE.`,
            () => post(`/api/jobs/${encodeURIComponent(id)}/cancel`),
            { danger: true, disabled: !running },
          ),
        ),
      ),
      h(
        'dl.facts',
        {},
        h('dt', {}, 'workflow'),
        h(
          'dd',
          {},
          h(
            'a',
            { href: `#/workflows/${encodeURIComponent(job.workflow)}` },
            `${job.workflow} v${job.version}`,
          ),
          job.model === 'durable' ? ' (code-first)' : '',
        ),
        h('dt', {}, 'created'),
        h('dd', {}, when(job.createdAt)),
        h('dt', {}, 'updated'),
        h('dd', {}, when(job.updatedAt)),
        h('dt', {}, 'finished'),
        h(
          'dd',
          {},
          job.finishedAt
            ? `${when(job.finishedAt)} (took ${took(job.createdAt, job.finishedAt)})`
            : '—',
        ),
        job.parent
          ? [
              h('dt', {}, 'parent'),
              h(
                'dd',
                {},
                h('a.mono', { href: `#/job/${encodeURIComponent(job.parent)}` }, job.parent),
              ),
            ]
          : [],
        job.collation
          ? [
              h('dt', {}, 'collation key'),
              h('dd.mono', { 'data-key': job.collation }, job.collation),
            ]
          : [],
        job.compositional && job.compositional !== job.collation
          ? [h('dt', {}, 'compositional key'), h('dd.mono', {}, job.compositional)]
          : [],
      ),
      job.error
        ? h(
            'div.errorbox',
            {},
            h('strong', {}, `${job.error.name}: ${job.error.message}`),
            job.error.stack ? h('pre', {}, job.error.stack) : '',
          )
        : '',
      job.output !== null && job.output !== undefined
        ? h('details', {}, h('summary', {}, 'output'), json(job.output))
        : '',
      h('details', {}, h('summary', {}, 'input'), json(job.input)),
    );
    fill(waits, ...job.waitingFor.map((w) => h('li', {}, w)));
  }

  function digitOf(activity) {
    return detail.digits.find((d) => d.activity === activity);
  }

  function threads(activity) {
    return detail.records.filter((r) => r.activity === activity);
  }

  async function renderGraph() {
    graphBox.hidden = !detail.graph;
    grid.classList.toggle('nograph', !detail.graph);
    if (!detail.graph) return;
    const state = (activity) => {
      const d = digitOf(activity);
      const n = threads(activity).length;
      const child = detail.job.children.filter(
        (c) => c.parent === detail.job.id && childActivity(c) === activity,
      ).length;
      const note = [n > 1 ? `${n} threads` : '', child ? `${child} child` : '']
        .filter(Boolean)
        .join(', ');
      return d ? { digit: d.digit, label: d.label, note } : undefined;
    };
    if (!drawn) {
      drawing ??= drawGraph(graphBox, detail.graph, { state, onSelect: select, selected }).then(
        (g) => {
          drawn = g;
        },
      );
      await drawing;
    }
    drawn.select(selected);
    drawn.update(state);
    fill(
      keyBox,
      h('h3', {}, 'Collation key'),
      keyStrip(detail.flatKey ?? detail.job.collation, detail.graph.order, select),
    );
  }

  function childActivity(child) {
    const rec = detail.records.find(
      (r) => r.output && typeof r.output === 'object' && r.output.job === child.id,
    );
    return rec?.activity ?? null;
  }

  function renderChildren() {
    const kids = detail.job.children;
    fill(
      children,
      kids.length
        ? [
            h('h3', {}, 'Child jobs'),
            h(
              'ul.childlist',
              {},
              kids.map((c) =>
                h(
                  'li',
                  {},
                  h('a.mono', { href: `#/job/${encodeURIComponent(c.id)}` }, c.id),
                  ' ',
                  badge(c.state),
                  ` ${c.workflow} v${c.version}`,
                  c.collation ? h('span.mono.muted', {}, ` ${c.collation}`) : '',
                ),
              ),
            ),
          ]
        : [],
    );
  }

  function renderPanel() {
    if (!detail.graph || !selected || !detail.graph.activities[selected]) {
      fill(panel, h('p.muted', {}, detail.graph ? 'Click an activity to see it.' : ''));
      panel.hidden = !detail.graph;
      return;
    }
    panel.hidden = false;
    const compiled = detail.graph.activities[selected];
    const row = detail.job.activities.find((a) => a.id === selected);
    const d = digitOf(selected);
    const recs = threads(selected);
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
              post(`/api/jobs/${encodeURIComponent(id)}/rerun`, { activity: selected }).then(
                (r) => ({ newJob: r.job }),
              ),
          }).then((done) => done?.newJob && navigate(`#/job/${encodeURIComponent(done.newJob)}`)),
      },
      'Rerun from here',
    );
    fill(
      panel,
      h('h2', {}, selected, ' ', d ? badge(d.label) : ''),
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
        h('dd', {}, d ? `${d.digit} at position ${d.position}` : '—'),
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
          row?.finishedAt
            ? `${when(row.finishedAt)} (${took(row.startedAt, row.finishedAt)})`
            : '—',
        ),
      ),
      h('div.actions', {}, compiled.kind === 'hook' && running ? hookButton(compiled) : '', rerun),
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

  function hookButton(compiled) {
    const form = signalForm(compiled.signal ?? compiled.id, 'signal');
    return action(
      `Signal ${compiled.signal ?? compiled.id}`,
      `Send signal ${compiled.signal ?? compiled.id} to ${detail.job.id}`,
      form.run,
      { body: form.body },
    );
  }

  function renderCodeFirst() {
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

  function renderHistory() {
    fill(
      historyBody,
      ...history
        .slice(-200)
        .reverse()
        .map((e) =>
          h(
            'tr',
            {},
            h('td', {}, String(e.seq)),
            h('td', {}, e.kind),
            h('td', {}, e.activity ?? ''),
            h('td', {}, e.dimension),
            h('td.mono', {}, JSON.stringify(e.change)),
            h('td', {}, when(e.at)),
            h('td.mono', {}, e.worker ?? 'client'),
          ),
        ),
    );
  }

  async function render() {
    if (!detail) return;
    renderHead();
    renderChildren();
    renderPanel();
    renderCodeFirst();
    await renderGraph();
  }

  let stop = () => {};
  get(`/api/jobs/${encodeURIComponent(id)}`).then(
    (d) => {
      detail = d;
      render();
      stop = stream(
        `/api/jobs/${encodeURIComponent(id)}/events`,
        (event, data) => {
          if (event === 'job') {
            detail = data;
            render();
          } else if (event === 'end') {
            stop();
            setLive(false);
          } else if (event === 'history') {
            history.push(...data);
            renderHistory();
          }
        },
        { onState: setLive, reconnect: true },
      );
    },
    (error) => {
      fill(root, h('h1', {}, 'Job ', h('span.mono', {}, id)), h('p.error-text', {}, error.message));
    },
  );
  return () => stop();
}
