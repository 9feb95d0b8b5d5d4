// The dashboard's router: #/jobs, #/job/<id>, #/workflows[/<name>], #/queues, #/schedules,
// #/dead-letters.
// Each page returns a function that stops its live streams when the page is left.
import { hasToken, setToken, setUnauthorizedHandler } from './api.js';
import { deadLettersPage } from './dead-letters-page.js';
import { fill, h } from './dom.js';
import { jobPage } from './job-page.js';
import { jobsPage } from './jobs-page.js';
import { queuesPage } from './queues-page.js';
import { schedulesPage } from './schedules-page.js';
import { workflowsPage } from './workflows-page.js';

const root = document.getElementById('page');
const live = document.getElementById('live');
let leave = () => {};

const context = {
  setLive(on) {
    live.classList.toggle('on', Boolean(on));
  },
  navigate(hash) {
    location.hash = hash;
  },
};

/** Asks for the token (the server said it wants one, or refused the one kept). */
function askForToken() {
  leave();
  leave = () => {};
  const input = h('input', {
    type: 'password',
    name: 'token',
    autocomplete: 'off',
    'aria-label': 'token',
  });
  fill(
    root,
    h('h1', {}, 'Token needed'),
    h(
      'p',
      {},
      'This dashboard asks for its token (weft dashboard --token, or WEFT_DASHBOARD_TOKEN).',
    ),
    h(
      'form.filters',
      {
        onsubmit: (e) => {
          e.preventDefault();
          setToken(input.value);
          route();
        },
      },
      input,
      h('button.primary', { type: 'submit' }, 'Use token'),
    ),
  );
}
setUnauthorizedHandler(askForToken);

function route() {
  leave();
  context.setLive(false);
  const hash = location.hash.replace(/^#/, '') || '/jobs';
  const [path, query = ''] = hash.split('?');
  const params = new URLSearchParams(query);
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const section = parts[0] ?? 'jobs';
  for (const a of document.querySelectorAll('[data-nav]')) {
    a.classList.toggle('active', a.dataset.nav === (section === 'job' ? 'jobs' : section));
  }
  fill(root);
  if (section === 'job' && parts[1]) leave = jobPage(root, parts[1], params, context);
  else if (section === 'workflows') leave = workflowsPage(root, parts[1], context);
  else if (section === 'queues') leave = queuesPage(root, context);
  else if (section === 'schedules') leave = schedulesPage(root, context);
  else if (section === 'dead-letters') leave = deadLettersPage(root, context);
  else leave = jobsPage(root, params, context);
  document.title = `weft · ${section === 'job' ? parts[1] : section}`;
}

window.addEventListener('hashchange', route);
// Ask for the token before any request that would be refused without it.
fetch('/healthz')
  .then((r) => r.json())
  .then(
    (health) => (health.token && !hasToken() ? askForToken() : route()),
    () => route(),
  );
