// The topic page's settings form (admin): every field PUT /v1/topics/{topic} takes but paused (the Pause button).
// It sends only the fields changed since it was filled, so a stored value the form did not touch is neither checked
// again nor overwritten, and someone else's change of another field meanwhile survives. Header values arrive masked
// and are write-only: a header left as the mask keeps its stored value (the API resolves it), a typed value
// replaces it. The API's refusal (422 or 400 problem+json) is shown next to the form, which keeps what was typed.
import { h, replace } from './dom.js';
import { put } from './api.js';

/** A mistake found before sending (a line that is no header, JSON that does not parse): nothing is sent. */
class FormError extends Error {}

const trimmed = (s) => (s || '').trim();
const orNull = (s) => trimmed(s) || null;
// A number when it reads as one; anything else goes as typed, for the API to refuse with its own message.
const number = (s) => (trimmed(s) === '' ? null : /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(trimmed(s)) ? Number(trimmed(s)) : trimmed(s));
const bool = (s) => (s === '' ? null : s === 'true');
const present = (object) => Object.fromEntries(Object.entries(object).filter(([, v]) => v !== null));

function json(s, field) {
  if (trimmed(s) === '') return null;
  try {
    return JSON.parse(s);
  } catch (e) {
    throw new FormError(`${field} is not JSON (${e.message}); e.g. {"type": "exponential", "initial": "1s", "multiplier": 2, "max": "1h"}`);
  }
}

function callback(url, lines, field) {
  const headers = {};
  trimmed(lines).split('\n').map(trimmed).filter(Boolean).forEach((line, i) => {
    const colon = line.indexOf(':');
    if (colon < 1) throw new FormError(`${field} headers, line ${i + 1}: write "Name: value"`);
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  });
  if (trimmed(url) === '' && !Object.keys(headers).length) return null;
  return Object.keys(headers).length ? { url: trimmed(url), headers } : { url: trimmed(url) };
}

const headerLines = (cb) => Object.entries((cb && cb.headers) || {}).map(([n, v]) => `${n}: ${v}`).join('\n');
const str = (v) => (v === undefined || v === null ? '' : String(v));
const YES_NO = [['', 'service default'], ['true', 'yes'], ['false', 'no']];

// Each body field: its inputs (name, label, kind, hint), how the settings fill them and how they make the value.
const FIELDS = [
  { legend: 'Callbacks', key: 'callback',
    inputs: [['callback.url', 'callback URL', 'text', 'https://…'], ['callback.headers', 'callback headers', 'area', 'Name: value, one a line; ******** keeps the stored value']],
    show: (s) => [str(s.callback && s.callback.url), headerLines(s.callback)],
    value: ([url, lines]) => callback(url, lines, 'callback') },
  { key: 'onDead',
    inputs: [['onDead.url', 'onDead URL', 'text', 'where dead notices go'], ['onDead.headers', 'onDead headers', 'area', 'Name: value, one a line']],
    show: (s) => [str(s.onDead && s.onDead.url), headerLines(s.onDead)],
    value: ([url, lines]) => callback(url, lines, 'onDead') },
  { legend: 'Retries', key: 'maxAttempts', inputs: [['maxAttempts', 'maxAttempts', 'text', '1 to 100']],
    show: (s) => [str(s.maxAttempts)], value: ([v]) => number(v) },
  { key: 'backoff', inputs: [['backoff', 'backoff (JSON)', 'area', '{"type": "schedule", "delays": ["1s", "1m"]}']],
    show: (s) => [s.backoff ? JSON.stringify(s.backoff) : ''], value: ([v]) => json(v, 'backoff') },
  { key: 'timeout', inputs: [['timeout', 'timeout', 'text', 'e.g. 30s']], show: (s) => [str(s.timeout)], value: ([v]) => orNull(v) },
  { key: 'expiresAfter', inputs: [['expiresAfter', 'expiresAfter', 'text', 'e.g. 3h']], show: (s) => [str(s.expiresAfter)], value: ([v]) => orNull(v) },
  { key: 'noRetryStatuses', inputs: [['noRetryStatuses', 'noRetryStatuses', 'text', 'e.g. 400, 404, 410']],
    show: (s) => [(s.noRetryStatuses || []).join(', ')],
    value: ([v]) => (trimmed(v) === '' ? null : trimmed(v).split(/[\s,]+/).map(number)) },
  { legend: 'Rate limit', key: 'rateLimit',
    inputs: [['rateLimit.perSecond', 'per second', 'text', 'empty: no limit'], ['rateLimit.burst', 'burst', 'text', 'empty: a tenth of a second\'s worth']],
    show: (s) => [str(s.rateLimit && s.rateLimit.perSecond), str(s.rateLimit && s.rateLimit.burst)],
    value: ([perSecond, burst]) => (trimmed(perSecond) === '' && trimmed(burst) === '' ? null
      : present({ perSecond: number(perSecond), burst: number(burst) })) },
  { legend: 'Circuit breaker', key: 'breaker',
    inputs: [['breaker.enabled', 'enabled', YES_NO], ['breaker.failureThreshold', 'failureThreshold', 'text', 'failures in a row'],
      ['breaker.probeInterval', 'probeInterval', 'text', 'e.g. 5s'], ['breaker.maxProbeInterval', 'maxProbeInterval', 'text', 'e.g. 5m'],
      ['breaker.releasePerSecond', 'releasePerSecond', 'text', 'after a close']],
    show: (s) => { const b = s.breaker || {}; return [str(b.enabled), str(b.failureThreshold), str(b.probeInterval), str(b.maxProbeInterval), str(b.releasePerSecond)]; },
    value: ([enabled, threshold, probe, maxProbe, release]) => {
      const b = present({ enabled: bool(enabled), failureThreshold: number(threshold), probeInterval: orNull(probe),
        maxProbeInterval: orNull(maxProbe), releasePerSecond: number(release) });
      return Object.keys(b).length ? b : null;
    } },
  { legend: 'Answers', key: 'asyncAck', inputs: [['asyncAck', 'asyncAck (every 202 is acked later)', YES_NO]], show: (s) => [str(s.asyncAck)], value: ([v]) => bool(v) },
  { key: 'asyncAckTimeout', inputs: [['asyncAckTimeout', 'asyncAckTimeout', 'text', '1s to 24h']], show: (s) => [str(s.asyncAckTimeout)], value: ([v]) => orNull(v) },
  { key: 'errorBodies', inputs: [['errorBodies', 'errorBodies (quote error answers)', YES_NO]], show: (s) => [str(s.errorBodies)], value: ([v]) => bool(v) },
  { key: 'archiveSucceeded', inputs: [['archiveSucceeded', 'archiveSucceeded', YES_NO]], show: (s) => [str(s.archiveSucceeded)], value: ([v]) => bool(v) },
];

const testid = (name) => 'setting-' + name.replace('.', '-');

/**
 * The form for the topic at base (/v1/topics/{topic}); onSaved(topic) gets the API's answer to a save.
 * fill(settings) puts the settings in, unless something was typed since the last fill (a poll must not undo typing).
 */
export function settingsForm(base, onSaved) {
  const inputs = new Map();
  const control = ([name, label, kind, hint]) => {
    const attrs = { id: testid(name), name, testid: testid(name), placeholder: Array.isArray(kind) ? null : hint, autocomplete: 'off' };
    const el = Array.isArray(kind) ? h('select', attrs, kind.map(([value, text]) => h('option', { value }, text)))
      : kind === 'area' ? h('textarea', { ...attrs, rows: 2 }) : h('input', { ...attrs, type: 'text' });
    inputs.set(name, el);
    return h('label', { for: attrs.id }, label, el);
  };
  const groups = [];
  for (const f of FIELDS) {
    if (f.legend) groups.push(h('fieldset', {}, h('legend', {}, f.legend)));
    groups[groups.length - 1].appendChild(h('div', { class: 'field-row' }, f.inputs.map(control)));
  }
  const problem = h('p', { class: 'form-error', role: 'alert', testid: 'settings-error', hidden: true });
  const saved = h('p', { class: 'muted', role: 'status', testid: 'settings-saved' });
  const save = h('button', { type: 'submit', testid: 'settings-save' }, 'Save settings');
  const reset = h('button', { type: 'button', class: 'secondary', testid: 'settings-reset' }, 'Discard changes');
  const form = h('form', { class: 'settings-form', testid: 'settings-form', 'aria-label': 'Change the topic\'s settings' },
    groups, problem, h('p', {}, save, reset), saved);

  let filled = new Map(); // name -> the text the last fill put in
  let last = null;
  let dirty = false;
  const strings = (f) => f.inputs.map(([name]) => inputs.get(name).value);

  function fill(settings, force) {
    last = settings;
    if (dirty && !force) return;
    filled = new Map();
    for (const f of FIELDS) {
      f.show(settings || {}).forEach((text, i) => {
        const name = f.inputs[i][0];
        inputs.get(name).value = text;
        filled.set(name, inputs.get(name).value); // as the control holds it (a select's value)
      });
    }
    dirty = false;
  }

  /** The PUT body: the fields whose inputs differ from the last fill. */
  function body() {
    const changed = {};
    for (const f of FIELDS) {
      if (f.inputs.some(([name]) => inputs.get(name).value !== filled.get(name))) changed[f.key] = f.value(strings(f));
    }
    return changed;
  }

  form.addEventListener('input', () => { dirty = true; });
  reset.addEventListener('click', () => {
    problem.hidden = true;
    saved.textContent = '';
    fill(last, true);
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    problem.hidden = true;
    saved.textContent = '';
    let changes;
    try {
      changes = body();
    } catch (e) {
      replace(problem, e.message);
      problem.hidden = false;
      return;
    }
    if (!Object.keys(changes).length) {
      saved.textContent = 'Nothing changed.';
      return;
    }
    save.disabled = true;
    try {
      const topic = await put(base, changes);
      fill(topic.settings, true);
      saved.textContent = `Saved: ${Object.keys(changes).join(', ')}.`;
      onSaved(topic);
    } catch (e) {
      replace(problem, e.detail || e.message); // the API's own words: it names the field and the rule
      problem.hidden = false;
    } finally {
      save.disabled = false;
    }
  });

  return { form, fill };
}
