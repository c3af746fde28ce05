// The header's tenant part. An operator's admin token gets a tenant picker (the tenants of GET /v1/admin/tenants):
// picking one narrows every call to that tenant's world (api.js sends Delayq-Tenant-View) until "all tenants" is
// picked again. A tenant's token sees its own world anyway: the header names its tenant and, for a tenant's admin
// (the role that may read its tenant), what it uses of its quotas.
import { h, replace, num } from './dom.js';
import { get, path, tenantView } from './api.js';

// Picks a tenant (or null: all) as the header's picker does; set while an operator's admin is signed in.
let picker = null;
// Renders started: a render that finds a newer one started meanwhile leaves the header to it.
let renders = 0;

/** Views the dashboard as this tenant (null: every tenant), as picking it in the header would. */
export function viewAs(name) {
  if (picker) picker(name);
}

/** "2 topics (of 10) · 12 pending jobs (of 1,000)": a tenant's use beside its quotas, where it has any. */
export function useText(tenant) {
  const q = tenant.quotas || {};
  const of = (max) => (max === undefined || max === null ? '' : ` (of ${num(max)})`);
  if (!tenant.use) return 'use unknown (the store could not be read)';
  return `${num(tenant.use.topics)} topic${tenant.use.topics === 1 ? '' : 's'}${of(q.maxTopics)} · `
    + `${num(tenant.use.pendingJobs)} pending job${tenant.use.pendingJobs === 1 ? '' : 's'}${of(q.maxPendingJobs)}`;
}

/**
 * Fills el for this token; onViewChange is called after the picked tenant changed (the page then shows its world).
 * Failures are shown through showError and leave the header as it was.
 */
export async function renderTenancy(el, me, can, onViewChange, showError) {
  const render = ++renders;
  replace(el);
  picker = null;
  if (me.tenant || !can.admin) tenantView.set(null); // only an operator's admin can pick a tenant
  if (me.tenant) { // its name is in whoami already
    if (!can.admin) return; // reading a tenant needs the admin role
    try {
      const own = await get(path('v1', 'admin', 'tenants', me.tenant));
      if (render !== renders) return;
      el.appendChild(h('span', { class: 'badge', testid: 'tenant-use', title: 'What your tenant uses of its quotas' },
        `${me.tenant}: ${useText(own)}`));
    } catch (e) {
      showError(e);
    }
    return;
  }
  if (!can.admin) return; // an operator's viewer may not list tenants: no picker
  let tenants = [];
  try {
    tenants = (await get('/v1/admin/tenants')).tenants || [];
  } catch (e) {
    showError(e);
  }
  if (render !== renders) return;
  const viewing = tenantView.get();
  const names = tenants.map((t) => t.name);
  if (viewing && !names.includes(viewing)) names.unshift(viewing); // a narrowed list may name the viewed one only
  const pick = (name) => {
    tenantView.set(name);
    renderTenancy(el, me, can, onViewChange, showError);
    onViewChange();
  };
  picker = pick;
  const select = h('select', { id: 'tenant-picker', testid: 'tenant-picker', 'aria-label': 'View as tenant' },
    h('option', { value: '' }, 'all tenants'),
    names.map((name) => h('option', { value: name, selected: name === viewing }, name)));
  select.addEventListener('change', () => pick(select.value || null));
  el.appendChild(select);
  if (viewing) {
    el.appendChild(h('span', { class: 'badge badge-warn', testid: 'viewing-as' }, `viewing as ${viewing}`));
    el.appendChild(h('button', { type: 'button', class: 'secondary', testid: 'view-all', on: { click: () => pick(null) } },
      'All tenants'));
  }
}
