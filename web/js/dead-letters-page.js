// Dead letters: messages that failed every delivery allowed; each can be requeued (its
// job, which it ended in FAILURE, runs again).
import { get, post } from './api.js';
import { confirmAction } from './confirm.js';
import { fill, h, when } from './dom.js';

export function deadLettersPage(root) {
  async function load() {
    const { deadLetters } = await get('/api/dead-letters?limit=200');
    fill(
      root,
      h('h1', {}, 'Dead letters'),
      deadLetters.length === 0
        ? h('p.muted', {}, 'None.')
        : h(
            'table',
            {},
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Id', 'Stream', 'Job', 'Deliveries', 'Reason', 'Dead at', ''].map((c) =>
                  h('th', {}, c),
                ),
              ),
            ),
            h(
              'tbody',
              {},
              deadLetters.map((d) =>
                h(
                  'tr',
                  {},
                  h('td.mono', {}, d.id),
                  h('td', {}, d.stream),
                  h(
                    'td',
                    {},
                    d.job
                      ? h('a.mono', { href: `#/job/${encodeURIComponent(d.job)}` }, d.job)
                      : '—',
                  ),
                  h('td', {}, String(d.deliveries)),
                  h(
                    'td.error-text',
                    {},
                    d.lastError ? `${d.reason}: ${d.lastError.message}` : d.reason,
                  ),
                  h('td', {}, when(new Date(d.deadAt).toISOString())),
                  h(
                    'td',
                    {},
                    h(
                      'button',
                      {
                        type: 'button',
                        onclick: () =>
                          confirmAction({
                            title: `Requeue dead letter ${d.id}?`,
                            body: [
                              h(
                                'p',
                                {},
                                'Its message goes back to its stream and its job runs again.',
                              ),
                            ],
                            confirm: 'Requeue',
                            action: () =>
                              post(`/api/dead-letters/${encodeURIComponent(d.id)}/requeue`),
                          }).then((done) => done && load()),
                      },
                      'Requeue',
                    ),
                  ),
                ),
              ),
            ),
          ),
    );
  }
  load().catch((error) =>
    fill(root, h('h1', {}, 'Dead letters'), h('p.error-text', {}, error.message)),
  );
  return () => {};
}
