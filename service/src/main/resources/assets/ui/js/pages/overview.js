// Overview: the topics, a page at a time, with their counters, paused badge, delivered/min and lateness p99 sparklines, and the open
// problems (dead letters, paused topics). Counters poll every 2 s; the per-minute history changes once a minute, so
// each topic's is fetched at most every 15 s.
import { h, replace, num, routeLink, table, emptyRow } from '../dom.js';
import { get, path, query, isDotName } from '../api.js';
import { Live, Cached } from '../live.js';
import { sparkline } from '../charts.js';

const HISTORY_MAX_AGE_MS = 15000;
// Sparklines for at most this many topics: a dashboard must not ask the store for hundreds of histories at a time.
const SPARKLINE_TOPICS = 50;
// Topics per page of GET /v1/topics (its largest): the 2 s poll reads one page, never every topic (issue 26, finding 12).
const PAGE_SIZE = 1000;

export function mount(root, params, ctx) {
  const problems = h('ul', { class: 'problems', testid: 'problems' });
  const body = h('div', { testid: 'topics' });
  const updated = h('span', { class: 'muted', testid: 'updated' });
  const pager = h('div', { class: 'pager', testid: 'topic-pager' });
  replace(root, h('h1', {}, 'Topics ', updated), h('div', { class: 'card' }, h('h2', {}, 'Open problems'), problems), body, pager);
  // The cursor of each page seen so far: cursors[i] asks for page i (null: the first).
  const cursors = [null];
  let pageIndex = 0;
  let nextCursor = null;
  const histories = new Map();

  const history = (topic) => {
    if (!histories.has(topic)) {
      histories.set(topic, new Cached(() => get(path('v1', 'topics', topic, 'history') + query({ minutes: 60 })), HISTORY_MAX_AGE_MS));
    }
    // A topic whose history cannot be read still shows its counters; the failure goes to the banner.
    return histories.get(topic).get().catch((e) => {
      ctx.showError(e);
      return null;
    });
  };

  const live = new Live(async () => {
    try {
      const page = await get('/v1/topics' + query({ limit: PAGE_SIZE, cursor: cursors[pageIndex] }));
      const topics = page.items || [];
      nextCursor = page.nextCursor || null;
      renderPager();
      const withHistory = await Promise.all(topics.map((t, i) => (i < SPARKLINE_TOPICS && !isDotName(t.topic) ? history(t.topic) : null)));
      render(topics, withHistory);
      updated.textContent = `updated ${new Date().toLocaleTimeString()}`;
    } catch (e) {
      ctx.showError(e);
    }
  }).start();

  function renderPager() {
    if (pageIndex === 0 && !nextCursor) {
      replace(pager);
      return;
    }
    const go = (delta) => () => {
      if (delta > 0) cursors[pageIndex + 1] = nextCursor;
      pageIndex += delta;
      live.tick(); // this page now, then every 2 s
    };
    replace(pager,
      h('button', { type: 'button', testid: 'topics-previous', disabled: pageIndex === 0, on: { click: go(-1) } }, 'Previous'), ' ',
      h('span', { class: 'muted' }, `page ${pageIndex + 1}`), ' ',
      h('button', { type: 'button', testid: 'topics-next', disabled: !nextCursor, on: { click: go(1) } }, 'Next'));
  }

  function render(topics, historyOf) {
    const rows = topics.map((t, i) => {
      const minutes = historyOf[i] ? historyOf[i].minutes || [] : [];
      const paused = t.settings && t.settings.paused;
      return h('tr', { 'data-topic': t.topic, testid: 'topic-row' },
        h('td', {}, routeLink(t.topic, 'topics', t.topic), ' ', paused ? h('span', { class: 'badge badge-warn', testid: 'paused-badge' }, 'paused') : null),
        h('td', { class: 'num', testid: 'scheduled' }, num(t.scheduled)),
        h('td', { class: 'num', testid: 'leased' }, num(t.leased)),
        h('td', { class: 'num', testid: 'dead' }, t.dead > 0 ? h('span', { class: 'badge badge-bad' }, num(t.dead)) : num(t.dead)),
        h('td', { class: 'num', testid: 'succeeded' }, num(t.succeeded)),
        h('td', {}, minutes.length ? sparkline(minutes.map((m) => m.delivered), { label: `${t.topic} delivered per minute` }) : h('span', { class: 'muted' }, '—')),
        h('td', {}, minutes.length ? sparkline(minutes.map((m) => m.latenessP99Ms), { label: `${t.topic} lateness p99`, unit: ' ms', color: '#a86400' }) : h('span', { class: 'muted' }, '—')));
    });
    replace(body, table([
      { label: 'Topic' }, { label: 'Scheduled', num: true }, { label: 'Leased', num: true }, { label: 'Dead', num: true },
      { label: 'Succeeded', num: true }, { label: 'Delivered / min (60 min)' }, { label: 'Lateness p99 (60 min)' },
    ], rows.length ? rows : [emptyRow(7, 'No topic has had a job yet.')], { 'aria-label': 'Topics' }));

    const open = [];
    for (const t of topics) {
      if (t.dead > 0) {
        open.push(h('li', { testid: 'problem' }, h('span', { class: 'badge badge-bad' }, 'dead'), ' ',
          h('a', { href: '#/dead-letters?topic=' + encodeURIComponent(t.topic) }, `${t.topic}: ${num(t.dead)} dead letter${t.dead === 1 ? '' : 's'}`)));
      }
      if (t.settings && t.settings.paused) {
        open.push(h('li', { testid: 'problem' }, h('span', { class: 'badge badge-warn' }, 'paused'), ' ',
          routeLink(`${t.topic} is paused: ${num(t.scheduled)} scheduled jobs wait`, 'topics', t.topic)));
      }
    }
    replace(problems, open.length ? open : [h('li', { class: 'muted' }, 'None: no dead letters, no paused topic.')]);
  }

  return () => live.stop();
}
