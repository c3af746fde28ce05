// One topic: counters, settings (a form to change them, for an admin), pause/resume, per-minute history (delivered, failed,
// dead and, of the dead, expired and noRetry, each with its total over the hour; lateness p50/p99), the forecast of jobs
// falling due, the leases in flight, and its recurring schedules (read every 5 s). Counters and leases poll every 2 s;
// history and forecast, which move by the minute, at most every 15 s.
import { h, replace, num, time, relative, table, emptyRow, routeLink, callbackText, rateText } from '../dom.js';
import { get, put, path, query } from '../api.js';
import { Live, Cached } from '../live.js';
import { lineChart, barChart, legend } from '../charts.js';
import { settingsForm } from '../settings-form.js';

const SLOW_MAX_AGE_MS = 15000;
const SCHEDULES_MAX_AGE_MS = 5000;

export function mount(root, { topic }, ctx) {
  let base;
  try {
    base = path('v1', 'topics', topic);
  } catch (e) {
    ctx.showError(e);
    return () => {};
  }
  const badge = h('span', { class: 'badge badge-warn', testid: 'paused-badge', hidden: true }, 'paused');
  const toggle = h('button', { type: 'button', testid: 'pause-toggle', disabled: !ctx.can.admin,
    title: ctx.can.admin ? null : 'read-only: pausing needs the admin role' }, 'Pause');
  const counts = h('div', { class: 'counts' });
  const settings = h('dl', { class: 'fields', testid: 'settings' });
  const throughput = h('div', { testid: 'history-chart' });
  const lateness = h('div', { testid: 'lateness-chart' });
  const forecast = h('div', { testid: 'forecast-chart' });
  const leases = h('div', { testid: 'leases' });
  const schedules = h('div', { testid: 'schedules' });
  let current = null;
  // Changing settings needs the admin role: other tokens get no form at all (the API would refuse it anyway).
  const editor = ctx.can.admin ? settingsForm(base, (t) => {
    ctx.clearError();
    renderTopic(current = t);
  }) : null;

  replace(root,
    h('h1', {}, h('span', { testid: 'topic-name' }, topic), badge, h('span', { class: 'grow' }),
      h('a', { href: `#/topics/${encodeURIComponent(topic)}/jobs`, class: 'button secondary', testid: 'topic-jobs-link' }, 'Jobs'), toggle),
    counts,
    h('div', { class: 'grid' },
      h('section', { class: 'card', 'aria-label': 'Delivered, failed, dead, expired and noRetry per minute' }, h('h2', {}, 'Per minute, last 60 minutes'), throughput),
      h('section', { class: 'card', 'aria-label': 'Lateness' }, h('h2', {}, 'Lateness p50 / p99 (ms)'), lateness),
      h('section', { class: 'card', 'aria-label': 'Due forecast' }, h('h2', {}, 'Falling due, next 60 minutes'), forecast)),
    h('div', { class: 'split' },
      h('section', { 'aria-label': 'Leases in flight' }, h('h2', {}, 'Leases in flight'), leases),
      h('section', { class: 'card', 'aria-label': 'Settings' }, h('h2', {}, 'Settings'), settings)),
    h('section', { class: 'card', 'aria-label': 'Change settings' }, h('h2', {}, 'Change settings'),
      editor ? editor.form : h('p', { class: 'muted', testid: 'settings-read-only' }, 'Changing settings needs the admin role.')),
    h('section', { 'aria-label': 'Recurring schedules' }, h('h2', {}, 'Recurring schedules'), schedules));

  toggle.addEventListener('click', async () => {
    if (!current) return;
    toggle.disabled = true;
    try {
      current = await put(base, { paused: !current.settings.paused });
      ctx.clearError();
      renderTopic(current);
    } catch (e) {
      ctx.showError(e);
    } finally {
      toggle.disabled = !ctx.can.admin;
    }
  });

  const history = new Cached(() => get(base + '/history' + query({ minutes: 60 })), SLOW_MAX_AGE_MS);
  const due = new Cached(() => get(base + '/forecast' + query({ minutes: 60 })), SLOW_MAX_AGE_MS);
  const plans = new Cached(() => get(base + '/schedules' + query({ limit: 100 })), SCHEDULES_MAX_AGE_MS);

  const live = new Live(async () => {
    const results = await Promise.allSettled([get(base), get(base + '/leases' + query({ limit: 100 })), history.get(), due.get()]);
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) ctx.showError(failed.reason);
    const [t, l, hist, fc] = results.map((r) => (r.status === 'fulfilled' ? r.value : null));
    if (t) renderTopic(current = t);
    if (l) renderLeases(l.items || []);
    if (hist) renderHistory(hist.minutes || []);
    if (fc) renderForecast(fc);
    // schedules need the producer, admin or viewer role: a consumer's token is told so here, not as a page error
    try {
      const p = await plans.get();
      renderSchedules(p.items || []);
    } catch (e) {
      replace(schedules, h('p', { class: 'muted', testid: 'schedules-error' },
        e.status === 403 ? 'Reading schedules needs the producer, admin or viewer role.' : e.message));
    }
  }).start();

  function renderTopic(t) {
    const paused = !!(t.settings && t.settings.paused);
    badge.hidden = !paused;
    toggle.textContent = paused ? 'Resume' : 'Pause';
    toggle.setAttribute('aria-pressed', String(paused));
    const count = (label, key, n) => h('div', { class: 'count' }, h('div', { class: 'n', testid: `count-${key}` }, num(n)), h('div', { class: 'l' }, label));
    replace(counts, count('Scheduled', 'scheduled', t.scheduled), count('Leased', 'leased', t.leased),
      count('Dead', 'dead', t.dead), count('Succeeded', 'succeeded', t.succeeded),
      h('div', { class: 'count' }, h('div', { class: 'n small' }, t.nextRunAt ? `${time(t.nextRunAt)} (${relative(t.nextRunAt)})` : '—'), h('div', { class: 'l' }, 'Next run')));
    const s = t.settings || {};
    const row = (label, value, none = 'service default') => [h('dt', {}, label),
      h('dd', { testid: `settings-${label}` }, value === undefined || value === null ? h('span', { class: 'muted' }, none) : value)];
    const text = (v) => (v === undefined || v === null ? null : String(v));
    replace(settings,
      row('paused', String(paused)),
      row('callback', callbackText(s.callback)),
      row('onDead', callbackText(s.onDead)),
      row('maxAttempts', s.maxAttempts),
      row('backoff', s.backoff ? JSON.stringify(s.backoff) : null),
      row('timeout', s.timeout),
      row('rateLimit', rateText(s.rateLimit), 'none'),
      row('expiresAfter', s.expiresAfter, 'none'),
      row('noRetryStatuses', s.noRetryStatuses && s.noRetryStatuses.length ? s.noRetryStatuses.join(', ') : null, 'none'),
      row('breaker', s.breaker ? JSON.stringify(s.breaker) : null),
      row('asyncAck', text(s.asyncAck)),
      row('asyncAckTimeout', s.asyncAckTimeout),
      row('errorBodies', text(s.errorBodies)),
      row('archiveSucceeded', text(s.archiveSucceeded)));
    if (editor) editor.fill(s);
  }

  function renderHistory(minutes) {
    const labels = minutes.length ? [time(minutes[0].minute).slice(11, 16), time(minutes[minutes.length - 1].minute).slice(11, 16)] : [];
    // expired and noRetry are among dead (its dead letters of causes EXPIRED and NO_RETRY); 0 in minutes recorded before
    // they were counted. Each legend entry carries the series' total over the range, the numbers behind the lines.
    const series = (name, color) => {
      const values = minutes.map((m) => m[name] || 0);
      return { name, color, values, total: values.reduce((a, b) => a + b, 0) };
    };
    const counts = [
      series('delivered', '#1f7a4d'),
      series('failed', '#a86400'),
      series('dead', '#b42318'),
      series('expired', '#7b4fb0'),
      series('noRetry', '#5d6b7e'),
    ];
    replace(throughput, lineChart(counts, { label: `${topic}: delivered, failed, dead, expired and noRetry per minute`, xLabels: labels }),
      legend(counts, 'history'));
    const late = [
      { name: 'p50', color: '#2457c5', values: minutes.map((m) => m.latenessP50Ms) },
      { name: 'p99', color: '#a86400', values: minutes.map((m) => m.latenessP99Ms) },
    ];
    replace(lateness, lineChart(late, { label: `${topic}: lateness p50 and p99 in ms`, unit: '', xLabels: labels }), legend(late));
  }

  function renderForecast(fc) {
    const counts = fc.counts || [];
    const total = counts.reduce((a, b) => a + b, 0);
    replace(forecast,
      barChart(counts, { label: `${topic}: jobs falling due per ${fc.bucketSeconds || 60} s`, xLabels: ['now', `+${counts.length} min`] }),
      h('div', { class: 'muted', testid: 'forecast-total' }, `${num(total)} jobs due in the next ${counts.length} minutes`));
  }

  function renderLeases(items) {
    replace(leases, table([{ label: 'Job' }, { label: 'Lane' }, { label: 'Attempt', num: true }, { label: 'Deadline' }],
      items.length ? items.map((l) => h('tr', { testid: 'lease-row' },
        h('td', {}, routeLink(l.id, 'jobs', topic, l.id)), h('td', {}, l.lane), h('td', { class: 'num' }, num(l.attempt)),
        h('td', { class: 'time' }, `${time(l.deadline)} (${relative(l.deadline)})`)))
        : [emptyRow(4, 'No job is leased right now.')], { 'aria-label': 'Leases in flight' }));
  }

  function renderSchedules(items) {
    const fire = (f) => f ? [f.jobId ? routeLink(f.jobId, 'jobs', topic, f.jobId) : h('span', { class: 'muted' }, f.kind),
      ` ${time(f.fireAt)}`] : h('span', { class: 'muted' }, 'none yet');
    replace(schedules, table([{ label: 'Name' }, { label: 'Cron' }, { label: 'Time zone' }, { label: 'Misfire' },
      { label: 'Next fire' }, { label: 'Last fire' }],
      items.length ? items.map((s) => h('tr', { testid: 'schedule-row' },
        h('td', {}, s.name, s.paused ? h('span', { class: 'badge badge-warn' }, 'paused') : null),
        h('td', { class: 'mono' }, s.cron), h('td', {}, s.timeZone), h('td', {}, s.misfire),
        h('td', { class: 'time' }, s.nextFireTimes && s.nextFireTimes.length
          ? `${time(s.nextFireTimes[0])} (${relative(s.nextFireTimes[0])})` : h('span', { class: 'muted' }, '—')),
        h('td', { class: 'time' }, fire((s.lastFires || [])[0]))))
        : [emptyRow(6, 'No recurring schedule in this topic.')], { 'aria-label': 'Recurring schedules' }));
  }

  return () => live.stop();
}
