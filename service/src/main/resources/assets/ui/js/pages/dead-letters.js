// Dead letters: a filter (kept in the hash, so a filtered view can be linked), the failure groups of that filter,
// the matching letters page by page (nextCursor), per-letter replay / purge, and bulk replay / purge of a group or
// of the whole filter. The groups and the current page poll every 2 s.
import { h, replace, num, time, table, emptyRow, routeLink } from '../dom.js';
import { get, post, del, path, query, isDotName } from '../api.js';
import { Live } from '../live.js';
import { bulkFlow } from '../bulk.js';

const FIELDS = [
  { key: 'topic', label: 'Topic' },
  { key: 'host', label: 'Callback host' },
  { key: 'status', label: 'HTTP status', size: 6 },
  { key: 'idPrefix', label: 'Id prefix' },
  { key: 'group', label: 'Group', size: 14 },
  { key: 'payloadField', label: 'Payload field', placeholder: 'orderId or customer.id' },
  { key: 'payloadValue', label: 'Payload value' },
];
const PAGE_SIZE = 25;

/** The filter as the hash holds it: only non-empty keys. */
function readFilter(params) {
  const filter = {};
  for (const { key } of [...FIELDS, { key: 'replayed' }]) {
    const v = params.get(key);
    if (v) filter[key] = v;
  }
  return filter;
}

/**
 * Query parameters of GET /v1/admin/dead-letters(/groups): payload.<field>=<value> for the payload match. A half of
 * it (a value without its field, or a field without its value) goes as it was typed, for the API to refuse: dropping
 * it here would list, and offer to purge, letters the filter on the screen does not describe.
 */
function listQuery(filter) {
  const q = { ...filter };
  if (filter.payloadField && filter.payloadValue !== undefined) {
    delete q.payloadField;
    delete q.payloadValue;
    q[`payload.${filter.payloadField}`] = filter.payloadValue;
  }
  return q;
}

/** The body's filter of POST /v1/admin/bulk-operations. */
function bulkFilter(filter) {
  const f = { ...filter };
  if (f.replayed) f.replayed = f.replayed === 'true';
  // status is a number in JSON bodies (the API converts no types); anything else goes as typed, for the API to refuse
  if (f.status && /^\d+$/.test(f.status)) f.status = Number(f.status);
  return f;
}

function describe(filter) {
  const parts = Object.entries(filter).map(([k, v]) => `${k}=${v}`);
  return parts.length ? `the filter ${parts.join(', ')}` : 'every dead letter';
}

export function mount(root, params, ctx) {
  const filter = readFilter(params.query);
  const cursors = [null];
  const inputs = {};
  const form = h('form', { class: 'inline card', testid: 'dead-letter-filter', 'aria-label': 'Filter dead letters' },
    FIELDS.map((f) => {
      inputs[f.key] = h('input', { id: `filter-${f.key}`, name: f.key, testid: `filter-${f.key}`, value: filter[f.key] || '', size: f.size || 12, placeholder: f.placeholder });
      return h('label', { for: `filter-${f.key}` }, f.label, inputs[f.key]);
    }),
    h('label', { for: 'filter-replayed' }, 'Replayed', inputs.replayed = h('select', { id: 'filter-replayed', testid: 'filter-replayed' },
      h('option', { value: '' }, 'any'), h('option', { value: 'false' }, 'never replayed'), h('option', { value: 'true' }, 'replayed'))),
    h('button', { type: 'submit', testid: 'filter-apply' }, 'Apply'),
    h('button', { type: 'button', class: 'secondary', testid: 'filter-clear', on: { click: () => go({}) } }, 'Clear'));
  inputs.replayed.value = filter.replayed || '';
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const next = {};
    for (const [k, input] of Object.entries(inputs)) if (input.value.trim()) next[k] = input.value.trim();
    go(next);
  });

  const bulkPanel = h('div', { testid: 'bulk-panel', hidden: true });
  const groups = h('div', { testid: 'groups' });
  const letters = h('div', { testid: 'letters' });
  const pager = h('div', { class: 'pager' });
  const replayAll = actionButton('Replay all matching', 'replay-filter', 'secondary', () => bulk('replay', filter, describe(filter)));
  const purgeAll = actionButton('Purge all matching', 'purge-filter', 'danger', () => bulk('purge', filter, describe(filter)));
  replace(root, h('h1', {}, 'Dead letters'), form, bulkPanel,
    h('h2', {}, 'Failure groups'), groups,
    h('h2', { class: 'with-actions' }, h('span', { class: 'grow' }, 'Letters'), replayAll, purgeAll), letters, pager);

  let stopBulk = () => {};
  function bulk(kind, f, what) {
    stopBulk();
    stopBulk = bulkFlow(bulkPanel, { kind, filter: bulkFilter(f), what }, ctx);
    bulkPanel.scrollIntoView({ block: 'nearest' });
  }

  function actionButton(label, testid, cls, onClick, unreachable) {
    const why = !ctx.can.admin ? 'read-only: needs the admin role' : unreachable || null;
    return h('button', { type: 'button', class: cls, testid, disabled: !ctx.can.admin || !!unreachable,
      title: why, on: { click: onClick } }, label);
  }

  /** Why a letter has no per-letter action: a topic or id made only of dots cannot be named in a URL. */
  function unreachable(d) {
    return isDotName(d.topic) || isDotName(d.id)
      ? 'its name is made only of dots, which no URL can carry: select it with the filters (e.g. Id prefix) and use Replay/Purge all matching'
      : null;
  }

  function go(next) {
    window.location.hash = '#/dead-letters' + query(next);
  }

  const live = new Live(async () => {
    const q = listQuery(filter);
    const results = await Promise.allSettled([
      get('/v1/admin/dead-letters/groups' + query({ ...q, limit: 50 })),
      get('/v1/admin/dead-letters' + query({ ...q, limit: PAGE_SIZE, cursor: cursors[cursors.length - 1] })),
    ]);
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) ctx.showError(failed.reason);
    if (results[0].status === 'fulfilled') renderGroups(results[0].value.items || []);
    if (results[1].status === 'fulfilled') renderLetters(results[1].value);
  }).start();

  function renderGroups(items) {
    replace(groups, table([
      { label: 'Kind' }, { label: 'Message' }, { label: 'Host' }, { label: 'Count', num: true }, { label: 'Last hour', num: true },
      { label: 'First seen' }, { label: 'Last seen' }, { label: '' },
    ], items.length ? items.map((g) => {
      const s = g.signature || {};
      const groupFilter = { ...filter, group: s.id };
      return h('tr', { testid: 'group-row', 'data-group': s.id },
        h('td', {}, h('span', { class: 'badge badge-bad', testid: 'group-kind' }, s.kind)),
        h('td', { class: 'ellipsis', title: s.message }, s.message),
        h('td', {}, s.host),
        h('td', { class: 'num', testid: 'group-count' }, num(g.count)),
        h('td', { class: 'num' }, num(g.lastHour)),
        h('td', { class: 'time' }, time(g.firstDeadAt)), h('td', { class: 'time' }, time(g.lastDeadAt)),
        h('td', { class: 'actions' },
          h('button', { type: 'button', class: 'secondary', testid: 'group-show', on: { click: () => go(groupFilter) } }, 'Show'),
          actionButton('Replay group', 'group-replay', 'secondary', () => bulk('replay', groupFilter, `the group ${s.kind} ${s.message || ''} at ${s.host || '?'}`)),
          actionButton('Purge group', 'group-purge', 'danger', () => bulk('purge', groupFilter, `the group ${s.kind} ${s.message || ''} at ${s.host || '?'}`))));
    }) : [emptyRow(8, 'No failure group matches.')], { 'aria-label': 'Failure groups' }));
  }

  function renderLetters(page) {
    const items = page.items || [];
    replace(letters, table([
      { label: 'Topic' }, { label: 'Job' }, { label: 'Died' }, { label: 'Attempts', num: true }, { label: 'Failure' },
      { label: 'Last error' }, { label: 'Replays', num: true }, { label: '' },
    ], items.length ? items.map((d) => h('tr', { testid: 'letter-row', 'data-id': d.id, 'data-topic': d.topic },
      h('td', { class: 'topic', title: d.topic }, routeLink(d.topic, 'topics', d.topic)),
      h('td', { testid: 'letter-id' }, routeLink(d.id, 'jobs', d.topic, d.id)),
      h('td', { class: 'time' }, time(d.deadAt)),
      h('td', { class: 'num' }, num(d.attempts)),
      h('td', {}, d.signature ? h('span', { class: 'badge' }, d.signature.kind) : ''),
      h('td', { class: 'ellipsis', title: d.lastError }, d.lastError),
      h('td', { class: 'num' }, num(d.replayCount || 0)),
      h('td', { class: 'actions' },
        actionButton('Replay', 'letter-replay', 'secondary', () => one(() => post(path('v1', 'admin', 'dead-letters', d.topic, d.id, 'replay'))), unreachable(d)),
        actionButton('Purge', 'letter-purge', 'danger', () => one(() => del(path('v1', 'admin', 'dead-letters', d.topic, d.id))), unreachable(d)))))
      : [emptyRow(8, 'No dead letter matches.')], { 'aria-label': 'Dead letters' }));
    const first = h('button', { type: 'button', class: 'secondary', testid: 'page-first', disabled: cursors.length === 1 }, 'First page');
    const next = h('button', { type: 'button', class: 'secondary', testid: 'page-next', disabled: !page.nextCursor }, 'Next page');
    first.addEventListener('click', () => { cursors.length = 1; live.tick(); });
    next.addEventListener('click', () => { cursors.push(page.nextCursor); live.tick(); });
    replace(pager, first, next, h('span', { class: 'muted' }, `page ${cursors.length}`));
  }

  async function one(action) {
    try {
      await action();
      ctx.clearError();
    } catch (e) {
      ctx.showError(e);
    }
    live.tick();
  }

  return () => {
    live.stop();
    stopBulk();
  };
}
