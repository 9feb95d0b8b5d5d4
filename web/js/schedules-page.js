// Schedules: each cron schedule with its state, next runs (UTC and its own zone), the
// last tick's job and error; pause and resume from the page.
import { get, post } from './api.js';
import { fill, h, when } from './dom.js';

/** A time in the schedule's zone, as `weft schedule show` prints it. */
function zoned(iso, timeZone) {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'short',
  }).format(new Date(iso));
}

function state(s) {
  return s.paused ? 'paused' : s.nextAt === null ? 'ended' : 'active';
}

export function schedulesPage(root) {
  async function load() {
    const { schedules } = await get('/api/schedules');
    fill(
      root,
      h('h1', {}, 'Schedules'),
      schedules.length === 0
        ? h(
            'p.muted',
            {},
            'None. Create one with weft schedule create, or schedules: in a workflow file.',
          )
        : h(
            'table',
            {},
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                [
                  'Name',
                  'Workflow',
                  'Cron',
                  'State',
                  'Next runs',
                  'Runs',
                  'Skipped',
                  'Last job',
                  '',
                ].map((c) => h('th', {}, c)),
              ),
            ),
            h(
              'tbody',
              {},
              schedules.map((s) =>
                h(
                  'tr',
                  { 'data-schedule': s.name, 'data-state': state(s) },
                  h('td.mono', {}, s.name),
                  h(
                    'td',
                    {},
                    h('a', { href: `#/workflows/${encodeURIComponent(s.workflow)}` }, s.workflow),
                  ),
                  h('td.mono', { title: `overlap ${s.overlap}` }, `${s.cron} (${s.timezone})`),
                  h('td', {}, state(s)),
                  h(
                    'td',
                    {},
                    s.upcoming.length === 0
                      ? '—'
                      : h(
                          'ul.plain',
                          {},
                          s.upcoming
                            .slice(0, 3)
                            .map((t) => h('li', { title: t }, zoned(t, s.timezone))),
                        ),
                  ),
                  h('td', {}, String(s.runs)),
                  h('td', {}, String(s.skipped)),
                  h(
                    'td',
                    {},
                    s.lastJob
                      ? h('a.mono', { href: `#/job/${encodeURIComponent(s.lastJob)}` }, s.lastJob)
                      : '—',
                    s.lastError ? h('div.error-text', {}, s.lastError) : null,
                    s.lastTickAt ? h('div.muted', {}, 'tick ', when(s.lastTickAt)) : null,
                  ),
                  h(
                    'td',
                    {},
                    h(
                      'button',
                      {
                        type: 'button',
                        onclick: () =>
                          post(
                            `/api/schedules/${encodeURIComponent(s.name)}/${s.paused ? 'resume' : 'pause'}`,
                          ).then(load),
                      },
                      s.paused ? 'Resume' : 'Pause',
                    ),
                  ),
                ),
              ),
            ),
          ),
    );
  }
  load().catch((error) =>
    fill(root, h('h1', {}, 'Schedules'), h('p.error-text', {}, error.message)),
  );
  return () => {};
}
