// The legend of a graph job's page: what each digit of the collation key means (with how
// many of this job's activities sit on it now), how an activity finds its digit, the
// marks the graph and the key strip add (reverted, skipped, failed), and the fields of
// the 15-digit semaphore the activity panel shows. The words come from the API
// (`legend` of GET /api/jobs/:id), which reads them off the engine's digit tables.
import { fill, h } from './dom.js';
import { digitClass } from './graph.js';

/**
 * Fills `box` with the legend of `detail` (a graph job's detail), or hides it. Built once
 * (so it stays folded or open as the user left it); later calls refresh "here now".
 */
export function renderLegend(box, detail) {
  const legend = detail.legend;
  box.hidden = !legend;
  if (!legend) return;
  const on = (digit) => detail.digits.filter((d) => d.digit === digit).map((d) => d.activity);
  if (box.dataset.built === 'yes') {
    for (const cell of box.querySelectorAll('td[data-here]')) {
      const here = on(Number(cell.dataset.here));
      cell.textContent = here.length ? here.join(', ') : '—';
    }
    return;
  }
  box.dataset.built = 'yes';
  fill(
    box,
    h(
      'details.legend',
      { open: true },
      h('summary', {}, 'Legend: what the digits mean'),
      h('p.small.muted', {}, legend.positions),
      h(
        'table.legend-digits',
        {},
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['digit', 'name', 'meaning', 'here now'].map((c) => h('th', {}, c)),
          ),
        ),
        h(
          'tbody',
          {},
          legend.digits
            .filter((row) => row.digit >= 3)
            .map((row) => {
              const here = on(row.digit);
              return h(
                'tr',
                { 'data-digit': String(row.digit) },
                h('td', {}, h(`span.swatch.${digitClass(row.digit)}`, {}, String(row.digit))),
                h('td', {}, row.label, row.active ? h('span.muted', {}, ' (active)') : ''),
                h('td', {}, row.meaning),
                h(
                  'td.small',
                  { 'data-here': String(row.digit) },
                  here.length ? here.join(', ') : '—',
                ),
              );
            }),
        ),
      ),
      h(
        'p.small',
        {},
        'Marks on the graph and the key: ',
        h('strong', {}, 'reverted'),
        ' (a 3 whose effect its compensation undid), ',
        h('strong', {}, 'skipped'),
        ' (a 3 on a branch not taken, never run), ',
        h('strong', {}, '✕ failed'),
        ' (a 7: nothing took its failure, so the job fails) and ',
        h('strong', {}, '✕ failed, handled'),
        ' (it failed, and an on: error or on: timeout transition went on). In a compositional key, 1 and 2 bracket a child job’s key; 0 fills the positions past the last activity.',
      ),
      h(
        'details.legend-semaphore',
        {},
        h('summary', {}, 'The semaphore (15 digits per activity, in its panel)'),
        h(
          'table',
          {},
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ['digits', 'field', 'meaning'].map((c) => h('th', {}, c)),
            ),
          ),
          h(
            'tbody',
            {},
            legend.semaphore.map((row) =>
              h(
                'tr',
                {},
                h('td.mono', {}, row.digits),
                h('td', {}, row.field),
                h('td', {}, row.meaning),
              ),
            ),
          ),
        ),
      ),
    ),
  );
}

/** The mark of an activity's digit in words: reverted, skipped, failed; '' for none. */
export function digitMark(d) {
  if (!d) return '';
  if (d.failure === 'unhandled')
    return d.state === 'Revert failed' ? '✕ revert failed' : '✕ failed';
  if (d.failure === 'handled') return '✕ failed, handled';
  if (d.digit === 3) return d.state === 'Reverted' ? 'reverted' : 'skipped';
  if (d.state === 'Reverting') return 'reverting';
  return '';
}
