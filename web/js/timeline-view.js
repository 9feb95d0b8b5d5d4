// A job's steps on a shared time axis, like a trace view: one row per step (a
// code-first job's tasks, waits, events, child workflows, property changes and
// reverts; a graph job's activities), its bar from start to end — a task's attempts
// each a bar, the backoff before a retry hatched, the wait for a worker pale — and
// under the bars the same steps as a table, so nothing is told by colour alone.
import { badge, fill, h, when } from './dom.js';

/** A duration in words: 840 ms, 1.2 s, 3 min 4 s, 2.5 h. */
export function duration(ms) {
  if (ms === null || ms === undefined) return '';
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

const ms = (iso) => (iso ? new Date(iso).getTime() : null);

/** The axis: from the job's start to its end, or now, or the last step's end if later. */
function axisOf(timeline, now) {
  const t0 = ms(timeline.start);
  let t1 = ms(timeline.end) ?? now;
  for (const step of timeline.steps) {
    const end = ms(step.finishedAt) ?? (step.startedAt ? now : null);
    if (end !== null && end > t1) t1 = end;
    const until = ms(step.until);
    if (until !== null && !step.finishedAt && until > t1 && until - t0 < 2 * (t1 - t0)) t1 = until;
  }
  return { t0, t1: Math.max(t1, t0 + 1) };
}

/** A positioned piece of a row's track (left and width through CSSOM: the CSP refuses style attributes). */
function piece(cls, axis, from, to, title) {
  const el = h(`span.${cls}`, { title });
  const span = axis.t1 - axis.t0;
  const left = ((from - axis.t0) / span) * 100;
  const width = to === null ? 0 : ((to - from) / span) * 100;
  el.style.left = `${Math.max(0, Math.min(100, left))}%`;
  if (to !== null) el.style.width = `max(2px, ${Math.max(0, Math.min(100 - left, width))}%)`;
  return el;
}

const rel = (axis, iso) => (iso ? `+${duration(ms(iso) - axis.t0)}` : '—');

/** The pieces of one step's track. */
function track(step, axis, now) {
  const out = [];
  const start = ms(step.startedAt);
  const end = ms(step.finishedAt);
  const scheduled = ms(step.scheduledAt);
  if (start === null) {
    if (scheduled !== null) {
      out.push(piece('tb.queued', axis, scheduled, now, `${step.name}: not started yet`));
    }
    return out;
  }
  if (step.attempts.length) {
    if (scheduled !== null && scheduled < start) {
      out.push(
        piece(
          'tb.queued',
          axis,
          scheduled,
          start,
          `waited ${duration(start - scheduled)} for a worker`,
        ),
      );
    }
    step.attempts.forEach((a, i) => {
      const from = ms(a.startedAt);
      const to = ms(a.finishedAt) ?? now;
      if (from !== null) {
        out.push(
          piece(
            `tb.attempt.o-${a.outcome.replace(/ /g, '-')}`,
            axis,
            from,
            to,
            `attempt ${a.attempt}: ${a.outcome}${a.error ? ` — ${a.error}` : ''} (${duration(to - from)})`,
          ),
        );
      }
      const next = step.attempts[i + 1];
      if (a.finishedAt && (a.retryAt || next)) {
        // The backoff until the retry was due, then (if later) the wait for a worker to claim it.
        const failed = ms(a.finishedAt);
        const begun = ms(next?.startedAt);
        const due = a.retryAt ? ms(a.retryAt) : (begun ?? now);
        const backoffEnd = Math.min(due, begun ?? Math.max(due, now));
        out.push(
          piece(
            'tb.backoff',
            axis,
            failed,
            backoffEnd,
            `backoff before attempt ${a.attempt + 1}${a.retryAt ? `: due ${when(a.retryAt)}` : ''}`,
          ),
        );
        const claimed = begun ?? (due < now ? now : null);
        if (claimed !== null && claimed > backoffEnd) {
          out.push(
            piece(
              'tb.queued',
              axis,
              backoffEnd,
              claimed,
              `attempt ${a.attempt + 1} waited ${duration(claimed - backoffEnd)} for a worker`,
            ),
          );
        }
      }
    });
    return out;
  }
  if (end !== null && end === start) {
    out.push(
      piece(
        `tb.instant.k-${step.kind}`,
        axis,
        start,
        null,
        `${step.name} at ${when(step.startedAt)}`,
      ),
    );
    return out;
  }
  out.push(
    piece(
      `tb.span.k-${step.kind}.st-${step.status.toLowerCase()}`,
      axis,
      start,
      end ?? now,
      `${step.name}: ${duration((end ?? now) - start)}${end ? '' : ' so far'}`,
    ),
  );
  const until = ms(step.until);
  if (until !== null && until >= axis.t0 && until <= axis.t1) {
    out.push(piece('tb.deadline', axis, until, null, `deadline ${when(step.until)}`));
  }
  return out;
}

/** What a step's table row says of its attempts, waits and values. */
function notes(step, axis) {
  const out = [];
  if (
    step.attempts.length > 1 ||
    step.attempts.some((a) => a.outcome !== 'completed' && a.outcome !== 'running')
  ) {
    for (const a of step.attempts) {
      const backoff = a.retryAt
        ? `, retried after a ${duration(ms(a.retryAt) - ms(a.finishedAt))} backoff`
        : '';
      out.push(
        h(
          'li',
          {},
          `attempt ${a.attempt} ${a.outcome} ${rel(axis, a.startedAt)} → ${a.finishedAt ? rel(axis, a.finishedAt) : 'now'}`,
          a.error ? ` — ${a.error}` : '',
          backoff,
        ),
      );
    }
  }
  if (step.event && step.kind === 'wait') out.push(h('li', {}, `event ${step.event}`));
  if (step.kind === 'wait' && step.until) {
    out.push(h('li', { title: when(step.until) }, `deadline ${rel(axis, step.until)}`));
  }
  if (step.changed !== undefined) out.push(h('li.mono', {}, JSON.stringify(step.changed)));
  if (step.error && !step.attempts.length) {
    out.push(h('li.error-text', {}, `${step.error.name}: ${step.error.message}`));
  }
  const short = (v) => (JSON.stringify(v) ?? '').slice(0, 120);
  if (step.input !== undefined && step.input !== null && step.kind !== 'wait') {
    out.push(h('li.mono', { title: 'input' }, `input ${short(step.input)}`));
  }
  if (step.output !== undefined && step.kind !== 'properties') {
    out.push(h('li.mono', { title: 'output' }, `output ${short(step.output)}`));
  }
  return out.length ? h('ul.plain.small', {}, out) : '';
}

function stepName(step) {
  const name =
    step.kind === 'workflow' && step.work
      ? h('a', { href: `#/job/${encodeURIComponent(step.work)}` }, step.name)
      : step.name;
  return [
    name,
    step.dimension ? h('span.muted', {}, ` [${step.dimension}]`) : '',
    step.dispatched ? h('span.muted', {}, ' (dispatched)') : '',
    step.keptFrom
      ? h(
          'span.muted.kept',
          {},
          ' (kept from ',
          h('a', { href: `#/job/${encodeURIComponent(step.keptFrom)}` }, step.keptFrom),
          ')',
        )
      : '',
  ];
}

/**
 * Draws the timeline into `box`: bars on an axis, then the same steps as a table.
 * `stepAction(step)`, when given, adds a control to a step's row (a code-first job's
 * "Rerun from here"), or '' for none.
 */
export function renderTimeline(box, timeline, { title = 'Steps', stepAction = null } = {}) {
  if (!timeline || timeline.steps.length === 0) {
    fill(box, h('h2', {}, title), h('p.muted', {}, 'No steps yet.'));
    return;
  }
  const now = Date.now();
  const axis = axisOf(timeline, now);
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const tick = h('span.tick', {}, `+${duration(f * (axis.t1 - axis.t0))}`);
    tick.style.left = `${f * 100}%`;
    return tick;
  });
  const rows = timeline.steps.map((step, i) =>
    h(
      'div.trow',
      { dataset: { step: String(i + 1), kind: step.kind } },
      h('div.tlabel', {}, `${i + 1}. ${step.name}`),
      h('div.ttrack', {}, track(step, axis, now)),
    ),
  );
  const table = h(
    'table.steps',
    {},
    h(
      'caption',
      {},
      `${title}, in the order they ran (times from the job's start, ${when(timeline.start)})`,
    ),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ['#', 'Step', 'Kind', 'Outcome', 'Start', 'End', 'Duration', 'Attempts', 'Details'].map(
          (c) => h('th', { scope: 'col' }, c),
        ),
      ),
    ),
    h(
      'tbody',
      {},
      timeline.steps.map((step, i) =>
        h(
          'tr',
          { dataset: { step: String(i + 1), kind: step.kind, status: step.status } },
          h('td', {}, String(i + 1)),
          h('td.name', {}, stepName(step)),
          h('td', {}, step.kind),
          h('td', {}, badge(step.status)),
          h('td.time', { title: when(step.startedAt) }, rel(axis, step.startedAt)),
          h(
            'td.time',
            { title: when(step.finishedAt) },
            step.finishedAt ? rel(axis, step.finishedAt) : step.startedAt ? 'running' : '—',
          ),
          h(
            'td.duration',
            {},
            step.durationMs !== null
              ? duration(step.durationMs)
              : step.startedAt
                ? `${duration(now - ms(step.startedAt))} so far`
                : '',
          ),
          h('td', {}, step.attempts.length ? String(step.attempts.length) : ''),
          h('td', {}, notes(step, axis), stepAction ? stepAction(step) : ''),
        ),
      ),
    ),
  );
  fill(
    box,
    h('h2', {}, title),
    // The bars repeat the table below for the eye; screen readers read the table.
    h(
      'div.trace',
      { 'aria-hidden': 'true' },
      h('div.trow.axis', {}, h('div.tlabel', {}, ''), h('div.ttrack', {}, ticks)),
      rows,
    ),
    h(
      'p.legend.small.muted',
      { 'aria-hidden': 'true' },
      h('span.key.o-completed', {}, ''),
      ' attempt or step done ',
      h('span.key.o-running', {}, ''),
      ' running ',
      h('span.key.o-failed', {}, ''),
      ' failed ',
      h('span.key.backoff', {}, ''),
      ' backoff before a retry ',
      h('span.key.queued', {}, ''),
      ' waiting for a worker ',
      h('span.key.k-wait', {}, ''),
      ' wait ',
      h('span.key.instant', {}, ''),
      ' instant',
    ),
    timeline.truncated ? h('p.muted', {}, 'The history is long: later steps may lack times.') : '',
    table,
  );
}
