// Bulk replay / purge of dead letters: a dry run first ("N letters match — replay them?"), then the real call, then
// the operation's live progress (done/total, state) with a cancel, polled from GET /v1/admin/bulk-operations/{id}.
import { h, replace, num, time, progressBar } from './dom.js';
import { get, post, path } from './api.js';
import { Live } from './live.js';

const VERB = { replay: 'replay', purge: 'purge', cancel: 'cancel', 'run-now': 'run now', reschedule: 'reschedule' };
const LABEL = { replay: 'Replay', purge: 'Purge', cancel: 'Cancel', 'run-now': 'Run now', reschedule: 'Reschedule' };
const DANGER = new Set(['purge', 'cancel']);

/**
 * Runs the dry-run / confirm / start / progress flow in panel; returns a function that stops its polling. The start
 * sends the confirmed count as expectedCount: when more letters match by then (some died meanwhile), the API refuses
 * (409) and the flow counts again and asks anew. With target 'jobs' it works on a topic's jobs (extra: runAt or
 * shiftMs of a reschedule).
 */
export function bulkFlow(panel, { kind, filter, what, target, extra }, ctx) {
  let live = null;
  const stop = () => live && live.stop();
  const noun = target === 'jobs' ? 'job' : 'letter';
  const base = { kind, filter, ...(target ? { target } : {}), ...(extra || {}) };
  panel.hidden = false;
  replace(panel, h('p', { class: 'muted' }, `Counting the ${target === 'jobs' ? 'jobs' : 'dead letters'} of ${what}…`));
  confirm();
  return stop;

  function confirm() {
    post('/v1/admin/bulk-operations', { ...base, dryRun: true }).then((dry) => {
      const n = dry.matching;
      const yes = h('button', { type: 'button', class: DANGER.has(kind) ? 'danger' : null, testid: 'confirm-yes', disabled: n === 0 },
        `${LABEL[kind]} ${num(n)} ${noun}${n === 1 ? '' : 's'}`);
      const no = h('button', { type: 'button', class: 'secondary', testid: 'confirm-no' }, 'Cancel');
      replace(panel, h('div', { class: 'card confirm', testid: 'bulk-confirm', role: 'alertdialog', 'aria-label': `Confirm ${kind}` },
        h('p', { testid: 'confirm-text' }, `${num(n)} ${noun}${n === 1 ? '' : 's'} match${n === 1 ? 'es' : ''} — ${VERB[kind]} ${n === 1 ? 'it' : 'them'}?`),
        h('p', { class: 'muted' }, what), yes, no));
      no.addEventListener('click', () => { panel.hidden = true; replace(panel); });
      yes.addEventListener('click', async () => {
        yes.disabled = true;
        try {
          const op = await post('/v1/admin/bulk-operations', { ...base, dryRun: false, expectedCount: n });
          ctx.clearError();
          live = watch(panel, op, ctx);
        } catch (e) {
          ctx.showError(e);
          if (e.status === 409) confirm(); // more match than were confirmed: count again, ask again
          else yes.disabled = false;
        }
      });
    }, (e) => {
      ctx.showError(e);
      panel.hidden = true;
    });
  }
}

/** Shows one bulk operation and polls it every 2 s while it runs. */
export function watch(panel, op, ctx) {
  const live = new Live(async () => {
    try {
      op = await get(path('v1', 'admin', 'bulk-operations', op.id));
    } catch (e) {
      ctx.showError(e);
    }
    render();
    if (op.state !== 'running') live.stop();
  });
  function render() {
    replace(panel, h('div', { class: 'card', testid: 'bulk-operation', 'data-operation': op.id, 'data-state': op.state },
      h('h2', {}, `Bulk ${op.kind} `, stateBadge(op)),
      h('p', { class: 'muted' }, `filter: ${op.filter || '(none)'} · started by ${op.startedBy || '?'} at ${time(op.createdAt)}`),
      progress(op), op.lastError ? h('p', { class: 'muted', testid: 'bulk-last-error' }, op.lastError) : null,
      h('p', {}, cancelButton(op, ctx, (updated) => { op = updated; render(); }))));
  }
  render();
  return live.start();
}

export function stateBadge(op) {
  const cls = { running: 'badge-warn', done: 'badge-ok', failed: 'badge-bad', stalled: 'badge-bad' }[op.state] || '';
  return h('span', { class: `badge ${cls}`, testid: 'bulk-state' }, op.cancelRequested && op.state === 'running' ? 'cancelling' : op.state);
}

export function progress(op) {
  return h('div', { class: 'progress-row' }, progressBar(op.done, op.total, op.state === 'done'),
    h('span', { testid: 'bulk-progress-text' }, `${num(op.done)} / ${num(op.total)}`),
    op.failed ? h('span', { class: 'badge badge-bad' }, `${num(op.failed)} failed`) : null);
}

/**
 * Cancel, for an operation the API says it can still stop (a running replay: cancellable), or "Cancelling…" once asked;
 * absent otherwise (a purge cannot be cancelled; a finished one has nothing to cancel).
 */
export function cancelButton(op, ctx, onCancelled) {
  const asked = op.cancelRequested && (op.state === 'running' || op.state === 'stalled');
  if (!op.cancellable && !asked) return null;
  const button = h('button', { type: 'button', class: 'danger', testid: 'bulk-cancel', disabled: !ctx.can.admin || op.cancelRequested,
    title: ctx.can.admin ? null : 'read-only: needs the admin role' }, op.cancelRequested ? 'Cancelling…' : 'Cancel operation');
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      onCancelled(await post(path('v1', 'admin', 'bulk-operations', op.id, 'cancel')));
      ctx.clearError();
    } catch (e) {
      ctx.showError(e);
    }
  });
  return button;
}
