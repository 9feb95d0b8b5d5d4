// Workflows: each deployed workflow and version, graph workflows drawn with how many
// running jobs sit at each activity right now (by digit), and jobs by state.
import { get, stream } from './api.js';
import { badge, fill, h, when } from './dom.js';
import { drawGraph } from './graph.js';

const RANK = ['Started', 'Paused', 'Errored', 'Pending', 'Completed', 'Released', 'Skipped'];
const DIGIT = {
  Pending: 9,
  Started: 8,
  Errored: 7,
  Completed: 6,
  Paused: 5,
  Released: 4,
  Skipped: 3,
};

export function workflowsPage(root, only, { setLive }) {
  fill(root, h('h1', {}, only ? `Workflow ${only}` : 'Workflows'), h('p.muted', {}, 'Loading…'));
  const drawn = new Map();
  let busy = false;

  async function load() {
    if (busy) return;
    busy = true;
    try {
      const { workflows } = await get('/api/workflows');
      const list = workflows.filter((w) => !only || w.workflow === only);
      if (drawn.size === 0) {
        fill(root, h('h1', {}, only ? `Workflow ${only}` : 'Workflows'));
        if (list.length === 0)
          root.append(h('p.muted', {}, 'No workflow is deployed yet (weft deploy <file>).'));
      }
      for (const wf of list) {
        for (const v of [...wf.versions].reverse()) {
          const key = `${wf.workflow}@${v.version}`;
          let entry = drawn.get(key);
          if (!entry) {
            const counts = h('div.counts');
            const graphBox = h('div.graphbox');
            const section = h(
              'section.workflow',
              { 'data-workflow': wf.workflow, 'data-version': v.version },
              h(
                'h2',
                {},
                h('a', { href: `#/jobs?workflow=${encodeURIComponent(wf.workflow)}` }, wf.workflow),
                ` v${v.version}`,
                v.version === wf.newest ? h('span.muted', {}, ' (newest)') : '',
                wf.model === 'durable' ? h('span.muted', {}, ' code-first') : '',
              ),
              h('p.muted', {}, `deployed ${when(v.deployedAt)}`),
              counts,
              graphBox,
            );
            root.append(section);
            entry = { counts, graphBox, graph: null };
            drawn.set(key, entry);
            if (v.graph) {
              entry.graph = await drawGraph(graphBox, v.graph, { state: () => undefined });
            } else
              fill(graphBox, h('p.muted', {}, 'A code-first workflow: its shape is its code.'));
          }
          fill(
            entry.counts,
            v.version === wf.newest
              ? [
                  h('span.muted', {}, 'all versions: '),
                  Object.entries(wf.counts).map(([st, n]) =>
                    h('span.count', {}, badge(st), ` ${n}`),
                  ),
                ]
              : '',
            h(
              'span.muted',
              {},
              ` · running on v${v.version}: ${v.running}${wf.sampled ? ' (sampled)' : ''}`,
            ),
          );
          entry.graph?.update((activity) => {
            const at = v.activities[activity] ?? {};
            const top = RANK.find((label) => at[label]);
            const note = RANK.filter(
              (label) =>
                at[label] && !['Pending', 'Completed', 'Skipped', 'Released'].includes(label),
            )
              .map((label) => `${label.toLowerCase()} ${at[label]}`)
              .join(', ');
            return top ? { digit: DIGIT[top], label: top, note } : undefined;
          });
        }
      }
    } finally {
      busy = false;
    }
  }

  load().catch((error) => root.append(h('p.error-text', {}, error.message)));
  let timer;
  const stop = stream(
    '/api/events',
    () => {
      clearTimeout(timer);
      timer = setTimeout(() => load().catch(() => {}), 500);
    },
    { onState: setLive },
  );
  return () => {
    stop();
    clearTimeout(timer);
  };
}
