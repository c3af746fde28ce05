// The callback origins' circuit breakers, a page at a time by origin (state, failures in a row, held jobs, opened /
// closed, next probe), each with its origin's configured rate limit; under them every configured origin limit, circuit
// or not: the two reasons an origin's jobs wait. Polls every 2 s.
import { h, replace, num, time, relative, table, emptyRow, rateText } from '../dom.js';
import { get, query } from '../api.js';
import { Live } from '../live.js';

const PAGE_SIZE = 100;

export function mount(root, params, ctx) {
  const summary = h('p', { class: 'muted', testid: 'circuits-summary' });
  const list = h('div', { testid: 'circuits' });
  const pager = h('div', { class: 'pager' });
  const limits = h('div', { testid: 'origin-rate-limits' });
  replace(root, h('h1', {}, 'Circuits'), summary, list, pager,
    h('h2', {}, 'Origin rate limits'),
    h('p', { class: 'muted' }, 'delivery.originRateLimits: deliveries per second to an origin over all instances,'
      + ' whatever topics they come from. An origin with no circuit above is limited all the same.'),
    limits);
  const cursors = [null];
  let pageIndex = 0;

  const live = new Live(async () => {
    try {
      const page = await get('/v1/admin/circuits' + query({ limit: PAGE_SIZE, cursor: cursors[pageIndex] }));
      render(page);
    } catch (e) {
      ctx.showError(e);
    }
  }).start();

  function render(page) {
    const items = page.items || [];
    replace(summary, !page.kept ? 'The store keeps no circuits.'
      : `The breaker is ${page.enabled ? 'on' : 'off'} by default (delivery.breaker.enabled; a topic's settings may`
        + ' differ). A closed circuit idle for delivery.breaker.idleExpiry (1 h by default) is forgotten.');
    const none = (text) => h('span', { class: 'muted' }, text);
    replace(list, table([
      { label: 'Origin' }, { label: 'State' }, { label: 'Failures in a row', num: true }, { label: 'Held jobs', num: true },
      { label: 'Opened' }, { label: 'Closed' }, { label: 'Next probe' }, { label: 'Rate limit' },
    ], items.length ? items.map((c) => h('tr', { testid: 'circuit-row', 'data-origin': c.origin, 'data-state': c.state },
      h('td', { testid: 'circuit-origin' }, c.origin),
      h('td', {}, h('span', { class: c.state === 'OPEN' ? 'badge badge-bad' : 'badge badge-ok', testid: 'circuit-state' }, c.state)),
      h('td', { class: 'num', testid: 'circuit-failures' }, num(c.consecutiveFailures)),
      // a tenant's token is told the jobs of its own topics held for the origin; an operator's, every tenant's
      h('td', { class: 'num', testid: 'circuit-held' }, c.heldJobs === undefined ? none('—') : num(c.heldJobs)),
      h('td', { class: 'time' }, c.openedAt ? time(c.openedAt) : none('never')),
      h('td', { class: 'time' }, time(c.closedAt)),
      h('td', { class: 'time', testid: 'circuit-next-probe' }, c.nextProbeAt
        ? `${time(c.nextProbeAt)} (${relative(c.nextProbeAt)}, every ${num(c.probeIntervalMs)} ms)` : ''),
      h('td', { testid: 'circuit-rate-limit' }, rateText(c.rateLimit) || none('none'))))
      : [emptyRow(8, 'No origin has a circuit: none has failed lately.')], { 'aria-label': 'Circuits' }));

    const configured = page.originRateLimits || [];
    replace(limits, table([{ label: 'Origin' }, { label: 'Per second', num: true }, { label: 'Burst', num: true }],
      configured.length ? configured.map((l) => h('tr', { testid: 'origin-rate-limit-row', 'data-origin': l.origin },
        h('td', {}, l.origin), h('td', { class: 'num' }, num(l.perSecond)), h('td', { class: 'num' }, num(l.burst))))
        : [emptyRow(3, 'No origin rate limit is configured.')], { 'aria-label': 'Origin rate limits' }));

    if (pageIndex === 0 && !page.nextCursor) {
      replace(pager);
      return;
    }
    const go = (delta) => () => {
      if (delta > 0) cursors[pageIndex + 1] = page.nextCursor;
      pageIndex += delta;
      live.tick();
    };
    replace(pager,
      h('button', { type: 'button', class: 'secondary', disabled: pageIndex === 0, on: { click: go(-1) } }, 'Previous'),
      h('span', { class: 'muted' }, `page ${pageIndex + 1}`),
      h('button', { type: 'button', class: 'secondary', disabled: !page.nextCursor, on: { click: go(1) } }, 'Next'));
  }

  return () => live.stop();
}
