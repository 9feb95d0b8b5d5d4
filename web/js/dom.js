// Tiny DOM helpers: h('tag.class', {attrs}, ...children) builds an element; text is
// always set as text (never as HTML), so job data cannot inject markup.

export function h(spec, attrs = {}, ...children) {
  const [tag, ...classes] = spec.split('.');
  const el = document.createElement(tag || 'div');
  if (classes.length) el.className = classes.join(' ');
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function')
      el.addEventListener(key.slice(2), value);
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

const SVG = 'http://www.w3.org/2000/svg';

/** An SVG element with attributes. */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null) continue;
    if (key.startsWith('on') && typeof value === 'function')
      el.addEventListener(key.slice(2), value);
    // Through CSSOM: the Content-Security-Policy refuses inline style attributes.
    else if (key === 'style') el.style.cssText = String(value);
    else el.setAttribute(key, String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** JSON, pretty, in a <pre>. */
export function json(value) {
  return h('pre.json', {}, value === undefined ? '' : JSON.stringify(value, null, 2));
}

/** An ISO time as local time, short. */
export function when(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  return d.toLocaleString(undefined, { hour12: false });
}

/** The time between two ISO times, in words. */
export function took(from, to) {
  if (!from) return '';
  const ms = (to ? new Date(to) : new Date()).getTime() - new Date(from).getTime();
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

/** A state badge (job states and digit labels). */
export function badge(text) {
  return h(
    `span.badge.s-${String(text)
      .toLowerCase()
      .replace(/[^a-z]+/g, '-')}`,
    {},
    text,
  );
}

/** Replaces an element's children with `children`, arrays flattened and empties dropped. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}
