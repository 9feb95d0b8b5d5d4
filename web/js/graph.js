// Draws a graph workflow with elkjs (layered, left to right) as SVG: one box per
// activity coloured by its digit, transitions as arrows (error and timeout transitions
// labelled), cycle re-entries dashed, scopes (activities naming a `scope`) nested in
// their scope's box. Below it, the collation key with each digit under its activity.
// A box or key cell also says in words what colour alone would: reverted or skipped
// (both digit 3), ✕ failed.
import { fill, h, s } from './dom.js';

const NODE_W = 150;
const NODE_H = 52;

/** The CSS class of a digit (d9 pending … d3 skipped). */
export function digitClass(digit) {
  return digit === undefined || digit === null ? 'dnone' : `d${digit}`;
}

function elkGraph(shape) {
  const ids = Object.keys(shape.activities);
  const scopeOf = (id) => {
    const scope = shape.activities[id]?.scope;
    return typeof scope === 'string' && shape.activities[scope] ? scope : null;
  };
  const nodes = new Map(ids.map((id) => [id, { id, width: NODE_W, height: NODE_H, children: [] }]));
  const roots = [];
  for (const id of ids) {
    const scope = scopeOf(id);
    if (scope) nodes.get(scope).children.push(nodes.get(id));
    else roots.push(nodes.get(id));
  }
  for (const node of nodes.values()) {
    if (node.children.length) {
      delete node.width;
      delete node.height;
      node.layoutOptions = { 'elk.padding': '[top=28,left=12,bottom=12,right=12]' };
    } else delete node.children;
  }
  const edges = shape.transitions.map((t, i) => ({
    id: `t${i}`,
    sources: [t.from],
    targets: [t.to],
    on: t.on,
    when: t.when,
  }));
  for (const [i, c] of shape.cycles.entries()) {
    edges.push({ id: `c${i}`, sources: [c.from], targets: [c.to], cycle: true });
  }
  return {
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
      'elk.spacing.nodeNode': '28',
      'elk.layered.spacing.nodeNodeBetweenLayers': '56',
      'elk.edgeRouting': 'SPLINES',
    },
    children: roots,
    edges,
  };
}

/** A mark's words as a CSS class: `✕ failed, handled` → `failed-handled`. */
function markClass(mark) {
  return mark
    .toLowerCase()
    .replace(/[^a-z]+/g, '-')
    .replace(/^-|-$/g, '');
}

/**
 * Lays out and draws `shape` into `container`. `state(id)` returns
 * `{ digit, label, note, mark, failed }` for an activity (or undefined): `label` names its
 * state (Reverted, Skipped…), `mark` is the words shown on its box (reverted, skipped,
 * ✕ failed), `failed` outlines it; `onSelect(id)` is called on a
 * click. Resolves to an object with `update(state)` to recolour without a new layout.
 */
export async function drawGraph(
  container,
  shape,
  { state = () => undefined, onSelect, selected } = {},
) {
  const elk = new globalThis.ELK();
  const laid = await elk.layout(elkGraph(shape));
  const boxes = new Map();
  // Scaled down to the box when wider than it, never up.
  const svg = s('svg', {
    class: 'graph',
    viewBox: `-10 -10 ${laid.width + 20} ${laid.height + 20}`,
    style: `width: 100%; max-width: ${laid.width + 20}px; height: auto;`,
    role: 'img',
    'aria-label': `graph of ${shape.workflow}`,
  });
  svg.append(
    s(
      'defs',
      {},
      s(
        'marker',
        {
          id: 'arrow',
          viewBox: '0 0 10 10',
          refX: 9,
          refY: 5,
          markerWidth: 7,
          markerHeight: 7,
          orient: 'auto-start-reverse',
        },
        s('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrowhead' }),
      ),
    ),
  );
  const edgeLayer = s('g', { class: 'edges' });
  const nodeLayer = s('g', { class: 'nodes' });
  svg.append(nodeLayer, edgeLayer);

  // Where each node sits in the whole drawing (ELK gives positions relative to the parent).
  const origin = new Map([['root', { x: 0, y: 0 }]]);
  const place = (node, dx, dy) => {
    const x = dx + node.x;
    const y = dy + node.y;
    origin.set(node.id, { x, y });
    const activity = shape.activities[node.id];
    if (node.children?.length) {
      nodeLayer.append(
        s(
          'g',
          { class: 'scope' },
          s('rect', { x, y, width: node.width, height: node.height, rx: 10 }),
          s('text', { x: x + 10, y: y + 18 }, `${node.id} (${activity?.kind ?? ''})`),
        ),
      );
      for (const child of node.children) place(child, x, y);
      return;
    }
    const g = s('g', {
      class: 'node',
      tabindex: 0,
      role: 'button',
      'data-activity': node.id,
      transform: `translate(${x},${y})`,
      onclick: () => onSelect?.(node.id),
      onkeydown: (e) => {
        if (e.key === 'Enter' || e.key === ' ') onSelect?.(node.id);
      },
    });
    const rect = s('rect', { width: node.width, height: node.height, rx: 8 });
    // Inside a scope's box a member is named by its short id; the box names the scope.
    const short = activity?.scope ? node.id.slice(node.id.lastIndexOf('.') + 1) : node.id;
    const title = s('text', { x: 10, y: 21, class: 'node-id' }, short);
    const kind = s('text', { x: 10, y: 40, class: 'node-kind' }, activity?.kind ?? '');
    const digit = s(
      'text',
      { x: node.width - 12, y: 33, class: 'node-digit', 'text-anchor': 'end' },
      '',
    );
    const note = s(
      'text',
      { x: node.width - 12, y: 46, class: 'node-note', 'text-anchor': 'end' },
      '',
    );
    const tip = s('title', {}, node.id);
    g.append(tip, rect, title, kind, digit, note);
    nodeLayer.append(g);
    boxes.set(node.id, { g, digit, note, tip });
  };
  for (const node of laid.children ?? []) place(node, 0, 0);

  // An edge's points are relative to its container (the scope both its ends are in).
  const edges = [];
  const collect = (node) => {
    for (const edge of node.edges ?? []) edges.push(edge);
    for (const child of node.children ?? []) collect(child);
  };
  collect(laid);
  for (const edge of edges) {
    const at = origin.get(edge.container ?? 'root') ?? { x: 0, y: 0 };
    for (const section of edge.sections ?? []) {
      const points = [section.startPoint, ...(section.bendPoints ?? []), section.endPoint].map(
        (p) => ({ x: p.x + at.x, y: p.y + at.y }),
      );
      const d = points.map((p, i) => `${i ? 'L' : 'M'} ${p.x} ${p.y}`).join(' ');
      const cls = edge.cycle
        ? 'edge cycle'
        : edge.on && edge.on !== 'success'
          ? `edge on-${edge.on}`
          : 'edge';
      edgeLayer.append(s('path', { d, class: cls, 'marker-end': 'url(#arrow)' }));
      const label = edge.cycle
        ? 're-enter'
        : edge.on && edge.on !== 'success'
          ? edge.on
          : edge.when
            ? 'when'
            : '';
      if (label) {
        const mid = points[Math.floor(points.length / 2)];
        edgeLayer.append(
          s(
            'text',
            { x: mid.x + 4, y: mid.y - 4, class: 'edge-label' },
            label,
            s('title', {}, edge.when ?? label),
          ),
        );
      }
    }
  }
  fill(container, h('div.graph-wrap', {}, svg));

  const update = (read) => {
    for (const [id, box] of boxes) {
      const st = read(id);
      // A mark in words (reverted, skipped, ✕ failed) besides the colour.
      const extra = [st?.mark ? `mark-${markClass(st.mark)}` : '', st?.failed ? 'failed' : '']
        .filter(Boolean)
        .map((c) => ` ${c}`)
        .join('');
      box.g.setAttribute(
        'class',
        `node ${digitClass(st?.digit)}${extra}${id === selected ? ' selected' : ''}`,
      );
      box.g.dataset.digit = st?.digit ?? '';
      box.g.dataset.state = st?.label ?? '';
      box.g.dataset.mark = st?.mark ?? '';
      box.digit.textContent = st?.digit ?? '';
      const note = [st?.mark, st?.note].filter(Boolean).join(' · ');
      box.note.textContent = note;
      box.tip.textContent = `${id}: ${st?.label ?? 'no jobs'}${note ? ` (${note})` : ''}`;
    }
  };
  update(state);
  return {
    update,
    select(id) {
      selected = id;
    },
  };
}

/** A mark short enough for a key cell: rev, skip, fail (the cell's title has it whole). */
function shortMark(mark) {
  if (!mark) return '';
  if (mark.startsWith('✕')) return '✕';
  return { reverted: 'rev', skipped: 'skip', reverting: 'rev…' }[mark] ?? '';
}

/**
 * The collation key as a strip: one cell per digit, leftmost first, with the activity
 * that digit belongs to printed above it (`·` past the last activity) and its mark
 * (rev, skip, ✕) under it; `read(activity)` gives `{ label, mark, failed }`.
 */
export function keyStrip(key, order, onSelect, read = () => undefined) {
  const cells = [...key].map((ch, i) => {
    const activity = order[i];
    const st = activity ? read(activity) : undefined;
    return h(
      `div.kcell.${activity ? digitClass(Number(ch)) : 'dnone'}${st?.failed ? '.failed' : ''}`,
      {
        title: activity
          ? `${activity}: ${ch}${st?.label ? ` ${st.label}` : ''}${st?.mark ? ` (${st.mark})` : ''}`
          : `position ${i + 1}: past the last activity`,
        'data-activity': activity ?? '',
        'data-mark': st?.mark || undefined,
        onclick: activity && onSelect ? () => onSelect(activity) : undefined,
      },
      h('span.kname', {}, activity ?? '·'),
      h('span.kdigit', {}, ch),
      h('span.kmark', {}, shortMark(st?.mark)),
    );
  });
  return h('div.keystrip', { 'aria-label': `collation key ${key}` }, cells);
}
