// The audit log, newest first, page by page (nextBefore). The newest page polls every 2 s; older pages do not
// change, so they are fetched once.
import { h, replace, num, time, table, emptyRow } from '../dom.js';
import { get, query } from '../api.js';
import { Live } from '../live.js';

const PAGE_SIZE = 50;

export function mount(root, params, ctx) {
  const list = h('div', { testid: 'audit' });
  const pager = h('div', { class: 'pager' });
  replace(root, h('h1', {}, 'Audit log'), list, pager);
  const befores = [null];

  const load = async () => {
    try {
      render(await get('/v1/admin/audit' + query({ limit: PAGE_SIZE, before: befores[befores.length - 1] })));
    } catch (e) {
      ctx.showError(e);
    }
  };
  const live = new Live(async () => {
    if (befores.length === 1) await load();
  }).start();

  function render(page) {
    const items = page.items || [];
    replace(list, table([
      { label: 'At' }, { label: 'Actor' }, { label: 'Action' }, { label: 'Target' }, { label: 'Count', num: true }, { label: 'Detail' },
    ], items.length ? items.map((e) => h('tr', { testid: 'audit-row', 'data-action': e.action },
      h('td', { class: 'time' }, time(e.at)), h('td', { testid: 'audit-actor' }, e.actor), h('td', {}, h('span', { class: 'badge', testid: 'audit-action' }, e.action)),
      h('td', { testid: 'audit-target' }, e.target), h('td', { class: 'num' }, num(e.count)), h('td', { class: 'ellipsis', title: e.detail }, e.detail || '')))
      : [emptyRow(6, 'Nothing recorded yet.')], { 'aria-label': 'Audit log' }));
    const newest = h('button', { type: 'button', class: 'secondary', testid: 'audit-newest', disabled: befores.length === 1 }, 'Newest');
    const older = h('button', { type: 'button', class: 'secondary', testid: 'audit-older', disabled: !page.nextBefore }, 'Older');
    newest.addEventListener('click', () => { befores.length = 1; load(); });
    older.addEventListener('click', () => { befores.push(page.nextBefore); load(); });
    replace(pager, newest, older, h('span', { class: 'muted' }, `page ${befores.length}`));
  }

  return () => live.stop();
}
