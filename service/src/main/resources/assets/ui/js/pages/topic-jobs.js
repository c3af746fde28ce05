// A topic's jobs (issue 29): pending ones in due order or finished ones in finish order, filtered (state, due range,
// id prefix, payload field) and paged by nextCursor; bulk cancel / run now / reschedule of everything the filter
// matches, each with its dry run first (bulk.js). The filter lives in the hash, so a filtered view can be linked.
import { h, replace, num, time, table, emptyRow, routeLink } from '../dom.js';
import { get, path, query } from '../api.js';
import { Live } from '../live.js';
import { bulkFlow } from '../bulk.js';

const FIELDS = [
  { key: 'from', label: 'Due from', placeholder: '2030-01-31T09:00:00Z', size: 20 },
  { key: 'to', label: 'Due before', placeholder: '2030-01-31T10:00:00Z', size: 20 },
  { key: 'idPrefix', label: 'Id prefix' },
  { key: 'payloadField', label: 'Payload field', placeholder: 'customer.id' },
  { key: 'payloadValue', label: 'Payload value' },
];
const STATES = ['scheduled,leased', 'scheduled', 'leased', 'succeeded,dead,cancelled', 'succeeded', 'dead', 'cancelled'];
const PAGE_SIZE = 25;

export function mount(root, { topic, query: params }, ctx) {
  let base;
  try {
    base = path('v1', 'topics', topic, 'jobs');
  } catch (e) {
    ctx.showError(e);
    return () => {};
  }
  const filter = {};
  for (const key of ['state', ...FIELDS.map((f) => f.key)]) {
    const v = params.get(key);
    if (v) filter[key] = v;
  }
  const cursors = [null];
  const inputs = {};
  const form = h('form', { class: 'inline card', testid: 'job-filter', 'aria-label': 'Filter jobs' },
    h('label', { for: 'filter-state' }, 'State', inputs.state = h('select', { id: 'filter-state', testid: 'filter-state' },
      STATES.map((s) => h('option', { value: s }, s.replace(/,/g, ', '))))),
    FIELDS.map((f) => {
      inputs[f.key] = h('input', { id: `filter-${f.key}`, name: f.key, testid: `filter-${f.key}`, value: filter[f.key] || '', size: f.size || 12, placeholder: f.placeholder });
      return h('label', { for: `filter-${f.key}` }, f.label, inputs[f.key]);
    }),
    h('button', { type: 'submit', testid: 'filter-apply' }, 'Apply'),
    h('button', { type: 'button', class: 'secondary', testid: 'filter-clear', on: { click: () => go({}) } }, 'Clear'));
  inputs.state.value = filter.state || 'scheduled,leased';
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const next = {};
    for (const [k, input] of Object.entries(inputs)) if (input.value.trim()) next[k] = input.value.trim();
    if (next.state === 'scheduled,leased') delete next.state;
    go(next);
  });

  const bulkPanel = h('div', { testid: 'bulk-panel', hidden: true });
  const jobs = h('div', { testid: 'jobs' });
  const pager = h('div', { class: 'pager' });
  const shift = h('input', { id: 'bulk-shift', testid: 'bulk-shift', size: 8, value: '60', 'aria-label': 'Minutes to move by' });
  const buttons = [
    actionButton('Cancel all matching', 'bulk-cancel-jobs', 'danger', () => bulk('cancel')),
    actionButton('Run all now', 'bulk-run-now', 'secondary', () => bulk('run-now')),
    h('label', { for: 'bulk-shift' }, 'move by (min)', shift),
    actionButton('Reschedule all', 'bulk-reschedule', 'secondary', () => {
      const minutes = Number(shift.value);
      if (!Number.isFinite(minutes)) return ctx.showError(new Error('move by: a number of minutes'));
      bulk('reschedule', { shiftMs: Math.round(minutes * 60000) });
    }),
  ];
  replace(root,
    h('h1', {}, 'Jobs of ', routeLink(topic, 'topics', topic)),
    form, bulkPanel,
    h('h2', { class: 'with-actions' }, h('span', { class: 'grow' }, 'Jobs'), ...buttons), jobs, pager);

  let stopBulk = () => {};
  function bulk(kind, extra) {
    stopBulk();
    const f = { topic, ...filter };
    const what = `the jobs of ${topic}` + (Object.keys(filter).length ? ` matching ${Object.entries(filter).map(([k, v]) => `${k}=${v}`).join(', ')}` : '');
    stopBulk = bulkFlow(bulkPanel, { kind, filter: f, what, target: 'jobs', extra }, ctx);
    bulkPanel.scrollIntoView({ block: 'nearest' });
  }

  function actionButton(label, testid, cls, onClick) {
    return h('button', { type: 'button', class: cls, testid, disabled: !ctx.can.admin,
      title: ctx.can.admin ? null : 'read-only: needs the admin role', on: { click: onClick } }, label);
  }

  function go(next) {
    window.location.hash = `#/topics/${encodeURIComponent(topic)}/jobs` + query(next);
  }

  const live = new Live(async () => {
    try {
      renderJobs(await get(base + query({ ...filter, limit: PAGE_SIZE, cursor: cursors[cursors.length - 1] })));
    } catch (e) {
      ctx.showError(e);
    }
  }).start();

  function renderJobs(page) {
    const items = page.items || [];
    replace(jobs, table([
      { label: 'Job' }, { label: 'State' }, { label: 'Run at' }, { label: 'Attempts', num: true }, { label: 'Payload' },
    ], items.length ? items.map((j) => h('tr', { testid: 'job-row', 'data-id': j.id },
      h('td', {}, routeLink(j.id, 'jobs', topic, j.id)),
      h('td', {}, h('span', { class: 'badge', testid: 'job-state' }, String(j.state).toLowerCase())),
      h('td', { class: 'time' }, time(j.runAt)),
      h('td', { class: 'num' }, `${num(j.attempts)} / ${num(j.maxAttempts)}`),
      h('td', { class: 'ellipsis', title: JSON.stringify(j.payload) }, JSON.stringify(j.payload))))
      : [emptyRow(5, page.nextCursor ? 'No match in this stretch: go on to the next page.' : 'No job matches.')],
    { 'aria-label': 'Jobs' }));
    const prev = h('button', { type: 'button', class: 'secondary', testid: 'page-prev', disabled: cursors.length === 1 }, 'Previous');
    const next = h('button', { type: 'button', class: 'secondary', testid: 'page-next', disabled: !page.nextCursor }, 'Next');
    prev.addEventListener('click', () => { cursors.pop(); live.tick(); });
    next.addEventListener('click', () => { cursors.push(page.nextCursor); live.tick(); });
    replace(pager, prev, h('span', { class: 'muted', testid: 'page-number' }, `page ${cursors.length}`), next);
  }

  return () => { live.stop(); stopBulk(); };
}
