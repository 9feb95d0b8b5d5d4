// Queues: each queue's limits, the jobs running on its slots and waiting for one, the
// longest wait, and its keys; refreshed every two seconds while the page is open.
import { get } from './api.js';
import { fill, h } from './dom.js';

function limits(q) {
  const parts = [q.concurrency === null ? 'no limit at once' : `${q.concurrency} at once`];
  if (q.keyConcurrency !== null) parts.push(`${q.keyConcurrency} per key`);
  if (q.rateLimit !== null) parts.push(`${q.rateLimit} per ${q.ratePeriodMs / 1000} s`);
  if (q.keyRateLimit !== null) {
    parts.push(`${q.keyRateLimit} per ${q.keyRatePeriodMs / 1000} s per key`);
  }
  if ((q.rateLimit !== null || q.keyRateLimit !== null) && q.throttle === 'drop') {
    parts.push('drops starts over the rate');
  }
  return parts.join(', ');
}

function waited(q) {
  const oldest = q.keys
    .map((k) => k.oldestWaiting)
    .filter((t) => t !== null)
    .sort((a, b) => a - b)[0];
  if (oldest === undefined) return '—';
  const s = Math.max(0, Math.round((Date.now() - oldest) / 1000));
  return s < 120 ? `${s} s` : `${Math.round(s / 60)} min`;
}

export function queuesPage(root) {
  let timer;
  async function load() {
    const { queues } = await get('/api/queues');
    fill(
      root,
      h('h1', {}, 'Queues'),
      queues.length === 0
        ? h('p.muted', {}, 'None. Create one with weft queue create.')
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
                  'Queue',
                  'Limits',
                  'Running',
                  'Waiting',
                  'Longest wait',
                  'Keys (running / waiting)',
                ].map((c) => h('th', {}, c)),
              ),
            ),
            h(
              'tbody',
              {},
              queues.map((q) =>
                h(
                  'tr',
                  { 'data-queue': q.name, 'data-running': q.running, 'data-waiting': q.waiting },
                  h('td.mono', {}, q.name),
                  h('td', {}, limits(q)),
                  h('td', {}, String(q.running)),
                  h('td', {}, String(q.waiting)),
                  h('td', {}, waited(q)),
                  h(
                    'td',
                    {},
                    q.keys.length === 0
                      ? '—'
                      : h(
                          'ul.plain',
                          {},
                          q.keys
                            .slice(0, 10)
                            .map((k) =>
                              h(
                                'li',
                                {},
                                `${k.key === '' ? '(no key)' : k.key}: ${k.running} / ${k.waiting}`,
                              ),
                            ),
                        ),
                  ),
                ),
              ),
            ),
          ),
    );
  }
  const tick = () =>
    load()
      .catch((error) => fill(root, h('h1', {}, 'Queues'), h('p.error-text', {}, error.message)))
      .finally(() => {
        timer = setTimeout(tick, 2000);
      });
  tick();
  return () => clearTimeout(timer);
}
