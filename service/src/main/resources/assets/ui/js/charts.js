// Small inline SVG charts drawn here: a sparkline, a multi-series line chart and a bar chart. Labels are text nodes.

const NS = 'http://www.w3.org/2000/svg';

function svg(tag, attrs = {}, text) {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = String(text);
  return el;
}

function maxOf(values) {
  return values.reduce((m, v) => (v === null || v === undefined ? m : Math.max(m, v)), 0);
}

/** Points of one series; a null value breaks the line (a minute without deliveries has no lateness). */
function paths(values, x, y) {
  const parts = [];
  let current = [];
  values.forEach((v, i) => {
    if (v === null || v === undefined) {
      if (current.length) parts.push(current);
      current = [];
    } else {
      current.push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`);
    }
  });
  if (current.length) parts.push(current);
  return parts;
}

/** A tiny line of values, newest on the right; its accessible label says the latest and the highest value. */
export function sparkline(values, { width = 120, height = 26, color = '#2457c5', label = '', unit = '' } = {}) {
  const max = maxOf(values) || 1;
  const n = Math.max(values.length - 1, 1);
  const x = (i) => 1 + (i * (width - 2)) / n;
  const y = (v) => height - 2 - (v / max) * (height - 4);
  const last = [...values].reverse().find((v) => v !== null && v !== undefined);
  const summary = `${label}: latest ${last ?? 'none'}${unit}, highest ${maxOf(values)}${unit}`;
  const root = svg('svg', { class: 'spark', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': summary });
  root.appendChild(svg('title', {}, summary));
  root.appendChild(svg('line', { x1: 0, x2: width, y1: height - 1.5, y2: height - 1.5, stroke: '#dde2e8' }));
  for (const points of paths(values, x, y)) {
    if (points.length === 1) {
      const [px, py] = points[0].split(',');
      root.appendChild(svg('circle', { cx: px, cy: py, r: 1.8, fill: color }));
    } else {
      root.appendChild(svg('polyline', { points: points.join(' '), fill: 'none', stroke: color, 'stroke-width': 1.5 }));
    }
  }
  return root;
}

/** A line chart of several series over the same x (one value per minute), with a y scale and a legend. */
export function lineChart(series, { width = 420, height = 160, label = '', unit = '', xLabels = [] } = {}) {
  const pad = { l: 44, r: 8, t: 8, b: 18 };
  const all = series.flatMap((s) => s.values);
  const max = niceMax(maxOf(all));
  const len = Math.max(...series.map((s) => s.values.length), 2);
  const x = (i) => pad.l + (i * (width - pad.l - pad.r)) / (len - 1);
  const y = (v) => height - pad.b - (v / max) * (height - pad.t - pad.b);
  const root = svg('svg', { class: 'chart', width: '100%', viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': label });
  root.appendChild(svg('title', {}, label));
  axes(root, { width, height, pad, max, unit, y, xLabels });
  for (const s of series) {
    for (const points of paths(s.values, x, y)) {
      root.appendChild(points.length === 1
        ? svg('circle', { cx: points[0].split(',')[0], cy: points[0].split(',')[1], r: 2, fill: s.color, 'data-series': s.name })
        : svg('polyline', { points: points.join(' '), fill: 'none', stroke: s.color, 'stroke-width': 1.6, 'data-series': s.name }));
    }
  }
  return root;
}

/** Vertical bars, one per bucket (jobs falling due per minute). */
export function barChart(values, { width = 420, height = 160, label = '', color = '#2457c5', xLabels = [] } = {}) {
  const pad = { l: 44, r: 8, t: 8, b: 18 };
  const max = niceMax(maxOf(values));
  const n = Math.max(values.length, 1);
  const slot = (width - pad.l - pad.r) / n;
  const y = (v) => height - pad.b - (v / max) * (height - pad.t - pad.b);
  const root = svg('svg', { class: 'chart', width: '100%', viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': label });
  root.appendChild(svg('title', {}, label));
  axes(root, { width, height, pad, max, unit: '', y, xLabels });
  values.forEach((v, i) => {
    if (!v) return;
    const top = y(v);
    const bar = svg('rect', { x: (pad.l + i * slot + slot * 0.15).toFixed(1), y: top.toFixed(1),
      width: Math.max(slot * 0.7, 1).toFixed(1), height: (height - pad.b - top).toFixed(1), fill: color });
    bar.appendChild(svg('title', {}, `+${i} min: ${v}`));
    root.appendChild(bar);
  });
  return root;
}

function axes(root, { width, height, pad, max, unit, y, xLabels }) {
  for (const v of [0, max / 2, max]) {
    root.appendChild(svg('line', { x1: pad.l, x2: width - pad.r, y1: y(v), y2: y(v), stroke: '#e6e9ee' }));
    root.appendChild(svg('text', { x: pad.l - 6, y: y(v) + 3, 'text-anchor': 'end' }, `${+v.toFixed(1)}${unit}`));
  }
  const [first, last] = xLabels;
  if (first) root.appendChild(svg('text', { x: pad.l, y: height - 4 }, first));
  if (last) root.appendChild(svg('text', { x: width - pad.r, y: height - 4, 'text-anchor': 'end' }, last));
}

function niceMax(max) {
  if (max <= 0) return 1;
  const step = 10 ** Math.floor(Math.log10(max));
  return Math.ceil(max / step) * step;
}

/**
 * A legend for a chart's series; a series with a `total` shows it after its name. With an `id`, each entry is found
 * by `data-testid="<id>-<series name>"`.
 */
export function legend(series, id) {
  const root = document.createElement('div');
  root.className = 'legend';
  for (const s of series) {
    const item = document.createElement('span');
    if (id) item.dataset.testid = `${id}-${s.name}`;
    const swatch = document.createElement('i');
    swatch.style.background = s.color;
    item.append(swatch, document.createTextNode(s.name));
    if (s.total !== undefined) {
      const total = document.createElement('b');
      total.textContent = Number(s.total).toLocaleString('en-US');
      item.append(' ', total);
    }
    root.appendChild(item);
  }
  return root;
}
