// The dashboard is a pure client of the REST API: a bearer token from sessionStorage, no cookies.

const TOKEN_KEY = 'delayq.token';
const VIEW_KEY = 'delayq.tenantView';
/** An operator's request narrowed to one tenant's topics (never widened); the API ignores it for a tenant's token. */
export const TENANT_VIEW_HEADER = 'Delayq-Tenant-View';
// The API sits at the root of the application port, next to /ui/.
const ROOT = new URL('../', window.location.href.split('#')[0]);

export const session = {
  token: () => window.sessionStorage.getItem(TOKEN_KEY),
  save: (token) => window.sessionStorage.setItem(TOKEN_KEY, token),
  clear: () => {
    window.sessionStorage.removeItem(TOKEN_KEY);
    window.sessionStorage.removeItem(VIEW_KEY);
  },
};

/**
 * The tenant an operator views the dashboard as (the tenant picker), kept in the tab like the token: while one is
 * picked every call sends it in TENANT_VIEW_HEADER, so every page, its polling included, shows that tenant's world.
 */
export const tenantView = {
  get: () => window.sessionStorage.getItem(VIEW_KEY),
  set: (name) => (name ? window.sessionStorage.setItem(VIEW_KEY, name) : window.sessionStorage.removeItem(VIEW_KEY)),
};

/** A failed call: the HTTP status and the problem+json detail (or whatever the server said). */
export class ApiError extends Error {
  constructor(status, detail, method, path) {
    super(`${method} ${path} failed (${status}): ${detail}`);
    this.status = status;
    this.detail = detail;
  }
}

/** One call; resolves to the parsed JSON body (null for 204), rejects with ApiError. */
export async function call(method, path, body, token = session.token()) {
  const headers = { Accept: 'application/json, application/problem+json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  const view = tenantView.get();
  if (view) headers[TENANT_VIEW_HEADER] = view;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response;
  try {
    response = await fetch(new URL(path.replace(/^\//, ''), ROOT), {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit', cache: 'no-store',
    });
  } catch (e) {
    throw new ApiError(0, `the service cannot be reached (${e.message})`, method, path);
  }
  const text = await response.text();
  let json = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch (notJson) {
    json = null;
  }
  if (!response.ok) {
    const detail = (json && (json.detail || json.title)) || text || response.statusText;
    throw new ApiError(response.status, detail, method, path);
  }
  return json;
}

export const get = (path) => call('GET', path);
export const post = (path, body) => call('POST', path, body === undefined ? {} : body);
export const put = (path, body) => call('PUT', path, body);
export const del = (path) => call('DELETE', path);

/**
 * Whether a name is made only of dots: '.' and '..' are steps of a URL path, which the browser folds before sending
 * (/dead-letters/t/../replay would become the bulk /dead-letters/replay), and the API refuses an encoded dot. The API
 * refuses such topics and ids; a letter stored under one earlier is reached through the filters (idPrefix).
 */
export function isDotName(name) {
  return typeof name === 'string' && /^\.+$/.test(name);
}

/** /v1/topics/a/jobs/b from segments, each encoded; throws for a segment made only of dots (see isDotName). */
export function path(...segments) {
  const dots = segments.find(isDotName);
  if (dots !== undefined) {
    throw new Error(`'${dots}' is made only of dots: no URL can name it (reach it through a filter, e.g. idPrefix)`);
  }
  return '/' + segments.map((s) => encodeURIComponent(s)).join('/');
}

/** '?a=1&b=2' from an object, leaving out empty values. */
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}
