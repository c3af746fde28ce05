// Building elements. Every string from the API goes in as a text node (textContent), never as HTML.

/**
 * h('td', {class: 'num', testid: 'scheduled'}, 12) -> <td class="num" data-testid="scheduled">12</td>.
 * attrs: class, testid, on (event handlers), dataset-like keys as data-*, anything else via setAttribute
 * (attribute values are not parsed as HTML). Children: nodes, strings, numbers, null (skipped), arrays.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'testid') el.dataset.testid = value;
    else if (key === 'on') for (const [event, fn] of Object.entries(value)) el.addEventListener(event, fn);
    else if (key === 'text') el.textContent = value;
    else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

/** Replaces the children of el. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** A link to a hash route built from path segments, each encoded; plain text when a segment is made only of dots. */
export function routeLink(text, ...segments) {
  if (segments.some((s) => /^\.+$/.test(String(s)))) return h('span', { title: 'a name made only of dots has no page' }, text);
  return h('a', { href: '#/' + segments.map(encodeURIComponent).join('/') }, text);
}

/** "2026-11-24T10:00:00.123Z" -> "2026-11-24 10:00:00" in the browser's time zone; '' for none. */
export function time(value) {
  if (!value) return '';
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** "in 3 s" / "5 min ago" for a time near now. */
export function relative(value) {
  if (!value) return '';
  const ms = new Date(value).getTime() - Date.now();
  const s = Math.round(Math.abs(ms) / 1000);
  const text = s < 90 ? `${s} s` : s < 5400 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`;
  return ms >= 0 ? `in ${text}` : `${text} ago`;
}

export function num(n) {
  return n === null || n === undefined ? '—' : Number(n).toLocaleString('en-US');
}

/** A progress bar of done out of total, with its text for screen readers and tests. */
export function progressBar(done, total, finished) {
  const pct = total > 0 ? Math.min(100, Math.round((done / total) * 100)) : (finished ? 100 : 0);
  const fill = h('span');
  fill.style.width = pct + '%';
  return h('div', { class: 'bar' + (finished ? ' done' : ''), role: 'progressbar', 'aria-valuemin': 0,
    'aria-valuemax': total, 'aria-valuenow': done, 'aria-label': `${done} of ${total} done` }, fill);
}

/** A table: headers [{label, num}] and rows (arrays of cells or <tr> elements). */
export function table(headers, rows, attrs = {}) {
  return h('table', attrs,
    h('thead', {}, h('tr', {}, headers.map((c) => h('th', { class: c.num ? 'num' : null, scope: 'col' }, c.label)))),
    h('tbody', {}, rows));
}

export function emptyRow(span, text) {
  return h('tr', {}, h('td', { colspan: span, class: 'muted' }, text));
}

/**
 * A callback or onDead target as text: its URL and its header names. The API shows header values masked
 * ("********": they are the receiver's credentials, write-only), and so does this.
 */
export function callbackText(callback) {
  if (!callback) return null;
  const headers = Object.entries(callback.headers || {}).map(([name, value]) => `${name}: ${value}`);
  return headers.length ? `${callback.url} · ${headers.join(', ')}` : callback.url;
}

/** A rate limit ({perSecond, burst}, a topic's or an origin's) as "5/s, burst 2"; null for none. */
export function rateText(limit) {
  return limit ? `${num(limit.perSecond)}/s, burst ${num(limit.burst)}` : null;
}
