// One job, live. A graph job: its graph coloured by digit, the collation key under it
// with each digit under its activity, its child jobs, the activity panel
// (activity-panel.js) and its activities on a timeline. A code-first job: its steps in
// the order they ran on a timeline (timeline-view.js), its child jobs, and its engine
// structure folded away under "Engine details" (code-first-view.js). Actions (signal or
// event, cancel, pause, resume, rerun from an activity or a code-first step) each confirm.
import { actionButton, signalForm } from './actions.js';
import { renderActivityPanel } from './activity-panel.js';
import { get, post, stream } from './api.js';
import { renderCodeFirst } from './code-first-view.js';
import { digitMark, renderLegend } from './digit-legend.js';
import { badge, fill, h, json, took, when } from './dom.js';
import { drawGraph, keyStrip } from './graph.js';
import { renderTimeline } from './timeline-view.js';

const FINAL = ['SUCCESS', 'FAILURE', 'REVERTED'];
const PAUSED = ['SUSPENDING', 'SUSPENDED'];

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
  const legendBox = h('section.legendbox');
  const children = h('div.children');
  const panel = h('aside.panel');
  const codeFirst = h('div.codefirst');
  // Folded by default; kept across re-renders, so it stays as the user left it.
  const engine = h('details.engine', {}, h('summary', {}, 'Engine details'), codeFirst);
  const timelineBox = h('section.timeline');
  const historyBody = h('tbody');
  const main = h('section.jobmain', {}, graphBox, keyBox, children);
  let laidOut = false;
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

  function renderHead() {
    const job = detail.job;
    const running = !FINAL.includes(job.state);
    const hooks = detail.graph
      ? Object.values(detail.graph.activities).filter((a) => a.kind === 'hook')
      : [];
    const signal = signalForm(
      id,
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
          actionButton(
            job.model === 'graph' ? 'Signal' : 'Event',
            `Send a ${job.model === 'graph' ? 'signal' : 'event'} to ${job.id}`,
            signal.run,
            { body: signal.body, disabled: !running },
          ),
          // Pause while it runs; Resume only once it is SUSPENDED (never on a running
          // or ended job, which the API refuses too).
          running && !PAUSED.includes(job.state)
            ? actionButton('Pause', `Pause ${job.id}?`, () =>
                post(`/api/jobs/${encodeURIComponent(id)}/pause`),
              )
            : '',
          job.state === 'SUSPENDED'
            ? actionButton('Resume', `Resume ${job.id}?`, () =>
                post(`/api/jobs/${encodeURIComponent(id)}/resume`),
              )
            : '',
          actionButton(
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
      failures(),
      job.output !== null && job.output !== undefined
        ? h('details', {}, h('summary', {}, 'output'), json(job.output))
        : '',
      h('details', {}, h('summary', {}, 'input'), json(job.input)),
    );
    fill(waits, ...job.waitingFor.map((w) => h('li', {}, w)));
  }

  /**
   * A graph job's failed activities, in words (not colour only): the one whose 7 ended
   * (or will end) the job in FAILURE first, then those an error transition took.
   */
  function failures() {
    const failed = (detail.digits ?? []).filter((d) => d.failure);
    if (!failed.length) return '';
    failed.sort(
      (a, b) => (a.failure === 'unhandled' ? 0 : 1) - (b.failure === 'unhandled' ? 0 : 1),
    );
    const ended = FINAL.includes(detail.job.state);
    return h(
      'ul.failures',
      { 'aria-label': 'failed activities' },
      failed.map((d) => {
        const row = detail.job.activities.find((a) => a.id === d.activity);
        const why =
          d.failure === 'unhandled'
            ? ended
              ? `${d.state} (digit ${d.digit}): nothing took its failure, so it ended the job in ${detail.job.state}`
              : `${d.state} (digit ${d.digit}): nothing took its failure; the job fails once nothing else runs`
            : `failed, and an error or timeout transition took it (digit ${d.digit}, ${d.state})`;
        return h(
          'li',
          { 'data-activity': d.activity, 'data-failure': d.failure },
          h('strong', {}, '✕ Failed activity '),
          h(
            'button.linkish.mono',
            { type: 'button', onclick: () => select(d.activity) },
            d.activity,
          ),
          `: ${why}`,
          row?.error ? h('span.mono', {}, ` — ${row.error.name}: ${row.error.message}`) : '',
        );
      }),
    );
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
      return d
        ? {
            digit: d.digit,
            label: d.state ?? d.label,
            note,
            mark: digitMark(d),
            failed: Boolean(d.failure),
          }
        : undefined;
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
      keyStrip(detail.flatKey ?? detail.job.collation, detail.graph.order, select, state),
    );
    renderLegend(legendBox, detail);
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

  /**
   * A code-first step's "Rerun from here": a new job whose journal keeps the results of
   * the steps before it (offered once the job has ended, on the works of its code).
   */
  function rerunButton(step) {
    if (!FINAL.includes(detail.job.state) || !step.work) return '';
    if (!['task', 'workflow', 'wait', 'value', 'send'].includes(step.kind)) return '';
    return actionButton(
      'Rerun from here',
      `Rerun ${detail.job.id} from ${step.name}?`,
      () =>
        post(`/api/jobs/${encodeURIComponent(detail.job.id)}/rerun`, { from: step.work }).then(
          (r) => ({ newJob: r.job }),
        ),
      {
        body: [
          h(
            'p',
            {},
            `A new job of the same workflow and input starts. The results of the steps before ${step.name} are kept as recorded (their tasks do not run again); ${step.name} and what follows run again. This job is left as it is.`,
          ),
        ],
        navigate,
      },
    );
  }

  /** A code-first job leads with its steps; a graph job with its graph, its timeline under it. */
  function layOut() {
    if (laidOut) return;
    laidOut = true;
    if (detail.job.model === 'durable') main.replaceChildren(timelineBox, children, engine);
    else main.replaceChildren(graphBox, keyBox, legendBox, children, timelineBox);
  }

  async function render() {
    if (!detail) return;
    layOut();
    renderHead();
    renderTimeline(timelineBox, detail.timeline, {
      title: detail.job.model === 'durable' ? 'Steps' : 'Timeline',
      stepAction: detail.job.model === 'durable' ? rerunButton : null,
    });
    renderChildren();
    renderActivityPanel(panel, detail, selected, navigate);
    renderCodeFirst(codeFirst, detail);
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
