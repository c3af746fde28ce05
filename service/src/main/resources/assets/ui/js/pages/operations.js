// Recent bulk operations, newest first, with their progress and state; a running one can be cancelled. Polls
// every 2 s.
import { h, replace, num, time, table, emptyRow } from '../dom.js';
import { get, query } from '../api.js';
import { Live } from '../live.js';
import { stateBadge, progress, cancelButton } from '../bulk.js';

export function mount(root, params, ctx) {
  const list = h('div', { testid: 'operations' });
  replace(root, h('h1', {}, 'Bulk operations'), list);
  const live = new Live(async () => {
    try {
      const { items } = await get('/v1/admin/bulk-operations' + query({ limit: 20 }));
      render(items || []);
    } catch (e) {
      ctx.showError(e);
    }
  }).start();

  function render(items) {
    replace(list, table([
      { label: 'Started' }, { label: 'Kind' }, { label: 'Filter' }, { label: 'State' }, { label: 'Progress' },
      { label: 'By' }, { label: 'Updated' }, { label: '' },
    ], items.length ? items.map((op) => h('tr', { testid: 'operation-row', 'data-operation': op.id, 'data-state': op.state },
      h('td', { class: 'time' }, time(op.createdAt)), h('td', {}, op.kind), h('td', { class: 'ellipsis', title: op.filter }, op.filter),
      h('td', {}, stateBadge(op), op.lastError ? h('div', { class: 'muted' }, op.lastError) : null),
      h('td', {}, progress(op)), h('td', {}, op.startedBy), h('td', { class: 'time' }, time(op.updatedAt)),
      h('td', {}, cancelButton(op, ctx, () => live.tick()))))
      : [emptyRow(8, 'No bulk operation yet.')], { 'aria-label': 'Bulk operations' }));
  }

  return () => live.stop();
}
