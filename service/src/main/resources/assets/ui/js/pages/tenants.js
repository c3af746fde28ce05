// The tenants, for an operator: topic patterns, weight, quotas beside what each uses now, signing secrets by id (the
// API never shows a secret's value), and "View as" (the header's tenant picker). Reading a tenant's use costs the
// store a look at every topic, so this page polls every 10 s, not every 2 s.
import { h, replace, num, table, emptyRow } from '../dom.js';
import { get } from '../api.js';
import { Live } from '../live.js';
import { useText, viewAs } from '../tenancy.js';

const INTERVAL_MS = 10000;

/** "maxPendingJobs 1,000 · enqueue 50/s, burst 10 · …", or "none". */
function quotaText(q) {
  const parts = [];
  if (!q) return 'none';
  if (q.maxPendingJobs != null) parts.push(`maxPendingJobs ${num(q.maxPendingJobs)}`);
  if (q.enqueuePerSecond != null) parts.push(`enqueue ${num(q.enqueuePerSecond)}/s${q.enqueueBurst != null ? `, burst ${num(q.enqueueBurst)}` : ''}`);
  if (q.maxPayloadBytes != null) parts.push(`maxPayloadBytes ${num(q.maxPayloadBytes)}`);
  if (q.maxTopics != null) parts.push(`maxTopics ${num(q.maxTopics)}`);
  return parts.length ? parts.join(' · ') : 'none';
}

export function mount(root, params, ctx) {
  const list = h('div', { testid: 'tenants' });
  replace(root, h('h1', {}, 'Tenants'),
    h('p', { class: 'muted' }, 'Each tenant\'s tokens see its topics only. "View as" shows the whole dashboard as the'
      + ' tenant sees it, until "All tenants" in the header.'),
    list);
  const live = new Live(async () => {
    try {
      render((await get('/v1/admin/tenants')).tenants || []);
    } catch (e) {
      ctx.showError(e);
    }
  }, INTERVAL_MS).start();

  function render(tenants) {
    replace(list, table([
      { label: 'Tenant' }, { label: 'Topics' }, { label: 'Weight', num: true }, { label: 'Quotas' }, { label: 'Use now' },
      { label: 'Signing secrets' }, { label: '' },
    ], tenants.length ? tenants.map((t) => h('tr', { testid: 'tenant-row', 'data-tenant': t.name },
      h('td', {}, t.name, ' ', t.fromConfig ? h('span', { class: 'badge', title: 'declared in config.yml: read-only through the API' }, 'config') : null),
      h('td', { testid: 'tenant-topics' }, (t.topics || []).join(', ')),
      h('td', { class: 'num', testid: 'tenant-weight' }, num(t.weight)),
      h('td', { testid: 'tenant-quotas' }, quotaText(t.quotas)),
      h('td', { testid: 'tenant-use' }, useText(t)),
      h('td', { testid: 'tenant-secrets' }, (t.signingSecrets || []).length
        ? `ids ${(t.signingSecrets || []).map((s) => s.id).join(', ')}` : h('span', { class: 'muted' }, 'the service\'s')),
      h('td', {}, h('button', { type: 'button', class: 'secondary', testid: 'view-as', disabled: ctx.viewing === t.name,
        on: { click: () => viewAs(t.name) } }, 'View as'))))
      : [emptyRow(7, 'No tenant: every token is an operator\'s.')], { 'aria-label': 'Tenants' }));
  }

  return () => live.stop();
}
