// Jobs: newest first, counts by state (click one to filter), filters by workflow, state
// and time, search by id, keyset pages (Older / Newer), live: re-read on every change
// the server reports.
import { get, stream } from './api.js';
import { badge, fill, h, when } from './dom.js';

const STATES = ['PENDING', 'RUNNING', 'SUCCESS', 'FAILURE', 'REVERTED', 'SUSPENDED'];

export function jobsPage(root, params, { setLive }) {
  const filters = {
    workflow: params.get('workflow') ?? '',
    state: params.get('state') ?? '',
    from: params.get('from') ?? '',
    to: params.get('to') ?? '',
    id: params.get('id') ?? '',
  };
  const pages = []; // `after` of each page we went through, to come back
  let after = '';
  let controller;

  const workflowSelect = h(
    'select',
    { name: 'workflow', 'aria-label': 'workflow' },
    h('option', { value: '' }, 'all workflows'),
  );
  const stateSelect = h(
    'select',
    { name: 'state', 'aria-label': 'state' },
    h('option', { value: '' }, 'any state'),
    STATES.map((st) => h('option', { value: st }, st)),
  );
  const from = h('input', { type: 'datetime-local', name: 'from', 'aria-label': 'created from' });
  const to = h('input', { type: 'datetime-local', name: 'to', 'aria-label': 'created before' });
  const search = h('input', {
    type: 'search',
    name: 'id',
    placeholder: 'job id',
    'aria-label': 'search by id',
  });
  stateSelect.value = filters.state;
  search.value = filters.id;
  const counts = h('div.counts');
  const body = h('tbody');
  const older = h('button', { type: 'button', disabled: true }, 'Older →');
  const newer = h('button', { type: 'button', disabled: true }, '← Newer');
  const summary = h('span.muted');

  const form = h(
    'form.filters',
    {
      onsubmit: (e) => {
        e.preventDefault();
        pages.length = 0;
        after = '';
        load();
      },
    },
    workflowSelect,
    stateSelect,
    h('label', {}, 'from ', from),
    h('label', {}, 'to ', to),
    search,
    h('button.primary', { type: 'submit' }, 'Filter'),
  );
  for (const el of [workflowSelect, stateSelect, from, to]) {
    el.addEventListener('change', () => form.requestSubmit());
  }
  older.onclick = () => {
    pages.push(after);
    after = older.dataset.next;
    load();
  };
  newer.onclick = () => {
    after = pages.pop() ?? '';
    load();
  };

  fill(
    root,
    h('h1', {}, 'Jobs'),
    form,
    counts,
    h(
      'table.jobs',
      {},
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Job', 'Workflow', 'State', 'Created', 'Updated', 'Error'].map((c) => h('th', {}, c)),
        ),
      ),
      body,
    ),
    h('div.pager', {}, newer, summary, older),
  );

  get('/api/workflows').then(
    ({ workflows }) => {
      for (const wf of workflows)
        workflowSelect.append(h('option', { value: wf.workflow }, wf.workflow));
      workflowSelect.value = filters.workflow;
    },
    () => {},
  );

  async function load() {
    controller?.abort();
    controller = new AbortController();
    const q = new URLSearchParams({ limit: '50' });
    if (workflowSelect.value) q.set('workflow', workflowSelect.value);
    if (stateSelect.value) q.set('state', stateSelect.value);
    if (from.value) q.set('from', new Date(from.value).toISOString());
    if (to.value) q.set('to', new Date(to.value).toISOString());
    if (search.value.trim()) q.set('id', search.value.trim());
    if (after) q.set('after', after);
    let page;
    try {
      page = await get(`/api/jobs?${q}`, controller.signal);
    } catch (error) {
      if (error.name !== 'AbortError')
        fill(body, h('tr', {}, h('td.error-text', { colspan: 6 }, error.message)));
      return;
    }
    fill(
      counts,
      h('span.muted', {}, `${page.total} jobs: `),
      STATES.filter((st) => page.counts[st]).map((st) =>
        h(
          'button.count',
          {
            type: 'button',
            'data-state': st,
            onclick: () => {
              stateSelect.value = stateSelect.value === st ? '' : st;
              form.requestSubmit();
            },
          },
          badge(st),
          ` ${page.counts[st]}`,
        ),
      ),
    );
    fill(
      body,
      ...(page.jobs.length
        ? page.jobs.map((job) =>
            h(
              'tr',
              { 'data-job': job.id },
              h('td', {}, h('a.mono', { href: `#/job/${encodeURIComponent(job.id)}` }, job.id)),
              h(
                'td',
                {},
                `${job.workflow} v${job.version}`,
                job.model === 'durable' ? h('span.muted', {}, ' code-first') : '',
              ),
              h('td', {}, badge(job.state)),
              h('td', {}, when(job.createdAt)),
              h('td', {}, when(job.updatedAt)),
              h('td.error-text', {}, job.error ?? ''),
            ),
          )
        : [h('tr', {}, h('td.muted', { colspan: 6 }, 'No jobs match.'))]),
    );
    older.disabled = !page.next;
    older.dataset.next = page.next ?? '';
    newer.disabled = pages.length === 0;
    summary.textContent = `page ${pages.length + 1}`;
  }

  load();
  let timer;
  const stop = stream(
    '/api/events',
    () => {
      clearTimeout(timer);
      timer = setTimeout(load, 150);
    },
    { onState: setLive },
  );
  return () => {
    stop();
    clearTimeout(timer);
    controller?.abort();
  };
}
