// The dashboard's shell: sign-in, the header (who is signed in, read-only badge, tenant picker or own tenant's use,
// sign-out), the error banner and the hash router. Each page is a module with mount(root, params, ctx) returning a
// function that unmounts it.
import { h, replace } from './dom.js';
import { call, session, tenantView } from './api.js';
import { renderTenancy } from './tenancy.js';
import * as overview from './pages/overview.js';
import * as topic from './pages/topic.js';
import * as topicJobs from './pages/topic-jobs.js';
import * as job from './pages/job.js';
import * as deadLetters from './pages/dead-letters.js';
import * as operations from './pages/operations.js';
import * as audit from './pages/audit.js';
import * as circuits from './pages/circuits.js';
import * as tenants from './pages/tenants.js';

const main = document.getElementById('main');
let unmount = () => {};
let me = null;

const routes = [
  { pattern: /^\/?$/, nav: 'overview', page: overview, params: () => ({}) },
  { pattern: /^\/topics\/([^/]+)$/, nav: 'overview', page: topic, params: (m) => ({ topic: m[1] }) },
  { pattern: /^\/topics\/([^/]+)\/jobs$/, nav: 'overview', page: topicJobs, params: (m) => ({ topic: m[1] }) },
  { pattern: /^\/jobs(?:\/([^/]+)\/([^/]+))?$/, nav: 'jobs', page: job, params: (m) => ({ topic: m[1], id: m[2] }) },
  { pattern: /^\/dead-letters$/, nav: 'dead-letters', page: deadLetters, params: () => ({}) },
  { pattern: /^\/operations$/, nav: 'operations', page: operations, params: () => ({}) },
  { pattern: /^\/audit$/, nav: 'audit', page: audit, params: () => ({}) },
  { pattern: /^\/circuits$/, nav: 'circuits', page: circuits, params: () => ({}) },
  { pattern: /^\/tenants$/, nav: 'tenants', page: tenants, params: () => ({}) },
];

/** Shows the problem detail of a failed call (or any error) until dismissed or the next success of an action. */
export function showError(error) {
  const banner = document.getElementById('error-banner');
  document.getElementById('error-text').textContent = error && error.message ? error.message : String(error);
  banner.hidden = false;
  if (error && error.status === 401 && me) signOut();
}

export function clearError() {
  document.getElementById('error-banner').hidden = true;
}

/** What this token may do, from GET /v1/me; the API refuses anyway, this only hides what would be refused. */
function abilities(roles) {
  const has = (r) => roles.includes(r);
  return {
    admin: has('admin'),
    producer: has('producer') || has('admin'),
    readOnly: !has('admin') && !has('producer') && !has('consumer'),
  };
}

/** What this signed-in token may do; operator: a token of no tenant (it sees every tenant's topics). */
function capabilities() {
  return { ...abilities(me.roles || []), operator: !me.tenant };
}

function route() {
  if (!me) return;
  unmount();
  clearError(); // a failure of the page left behind is not news on this one
  const [hashPath, hashQuery] = (window.location.hash.replace(/^#/, '') || '/').split('?');
  const found = routes.map((r) => ({ r, m: hashPath.match(r.pattern) })).find((x) => x.m);
  document.querySelectorAll('nav a').forEach((a) => a.classList.toggle('active', found && a.dataset.nav === found.r.nav));
  replace(main);
  if (!found) {
    main.appendChild(h('p', {}, 'No such page. ', h('a', { href: '#/' }, 'Back to the overview')));
    unmount = () => {};
    return;
  }
  const params = Object.fromEntries(Object.entries(found.r.params(found.m)).map(([k, v]) => [k, v && decodeURIComponent(v)]));
  params.query = new URLSearchParams(hashQuery || '');
  const ctx = { me, can: capabilities(), showError, clearError, viewing: tenantView.get() };
  main.dataset.page = found.r.nav;
  unmount = found.r.page.mount(main, params, ctx) || (() => {});
}

function showSignedIn() {
  document.getElementById('nav').hidden = false;
  document.getElementById('who').hidden = false;
  const roles = me.roles || [];
  // a tenant's token sees its tenant's topics only (the API filters every list): say whose world this is
  document.getElementById('whoami').textContent = `${me.name} (${roles.join(', ')})`
    + (me.tenant ? ` · tenant ${me.tenant}` : '');
  document.getElementById('read-only-badge').hidden = !abilities(roles).readOnly;
  const can = capabilities();
  // the tenants page and the picker are an operator's admin's: a tenant's token sees its own tenant in the header
  document.querySelector('nav a[data-nav="tenants"]').hidden = !(can.operator && can.admin);
  renderTenancy(document.getElementById('tenancy'), me, can, route, showError);
}

function signOut() {
  session.clear();
  me = null;
  unmount();
  unmount = () => {};
  document.getElementById('nav').hidden = true;
  document.getElementById('who').hidden = true;
  showSignIn();
}

function showSignIn() {
  delete main.dataset.page;
  const input = h('input', { id: 'token', type: 'password', autocomplete: 'off', required: true, testid: 'token-input' });
  const form = h('form', { class: 'card signin', testid: 'sign-in-form' },
    h('h1', {}, 'Sign in'),
    h('p', { class: 'muted' }, 'Paste an API token. It is kept in this tab only (sessionStorage) and sent as a bearer token.'),
    h('label', { for: 'token' }, 'API token', input),
    h('p', {}, h('button', { type: 'submit', testid: 'sign-in' }, 'Sign in')));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    await signIn(input.value.trim());
  });
  replace(main, form);
  input.focus();
}

async function signIn(token) {
  tenantView.set(null); // a new sign-in sees every tenant's world until a tenant is picked
  try {
    me = await call('GET', '/v1/me', undefined, token);
  } catch (e) {
    me = null;
    showError(e);
    return;
  }
  session.save(token);
  clearError();
  showSignedIn();
  route();
}

document.getElementById('sign-out').addEventListener('click', signOut);
document.getElementById('error-dismiss').addEventListener('click', clearError);
window.addEventListener('hashchange', route);

if (session.token()) {
  call('GET', '/v1/me').then((who) => {
    me = who;
    showSignedIn();
    route();
  }, (e) => {
    session.clear();
    showSignIn();
    showError(e);
  });
} else {
  showSignIn();
}
