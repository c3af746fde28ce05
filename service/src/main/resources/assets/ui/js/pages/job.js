// A job by topic and id: state, attempts with their errors, the payload (as text, pretty-printed), cancel and
// reschedule. Polls every 2 s until the job has finished.
import { h, replace, num, time, relative, table, emptyRow, routeLink, callbackText } from '../dom.js';
import { get, post, del, path } from '../api.js';
import { Live } from '../live.js';

const FINISHED = ['SUCCEEDED', 'DEAD', 'CANCELLED'];

export function mount(root, { topic, id }, ctx) {
  const topicInput = h('input', { id: 'job-topic', name: 'topic', required: true, testid: 'job-topic', value: topic || '' });
  const idInput = h('input', { id: 'job-id', name: 'id', required: true, testid: 'job-id', value: id || '', size: 40 });
  const form = h('form', { class: 'inline card', testid: 'job-form', 'aria-label': 'Find a job' },
    h('label', { for: 'job-topic' }, 'Topic', topicInput), h('label', { for: 'job-id' }, 'Job id', idInput),
    h('button', { type: 'submit', testid: 'job-find' }, 'Show job'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    window.location.hash = '#/jobs/' + encodeURIComponent(topicInput.value.trim()) + '/' + encodeURIComponent(idInput.value.trim());
  });
  const view = h('div', { testid: 'job-view' });
  replace(root, h('h1', {}, 'Job'), form, view);
  if (!topic || !id) return () => {};

  let base;
  try {
    base = path('v1', 'topics', topic, 'jobs', id);
  } catch (e) {
    ctx.showError(e);
    return () => {};
  }
  let live = null;
  let shown = null;

  const refresh = async () => {
    try {
      const job = await get(base);
      // Re-render only on change, so a half-typed delay in the reschedule form survives the poll.
      const key = JSON.stringify(job);
      if (key !== shown) {
        shown = key;
        render(job);
      }
      if (FINISHED.includes(job.state) && live) live.stop();
    } catch (e) {
      ctx.showError(e);
      if (e.status === 404) live.stop();
    }
  };
  live = new Live(refresh).start();

  async function act(fn) {
    try {
      await fn();
      ctx.clearError();
    } catch (e) {
      ctx.showError(e);
    }
    shown = null;
    await refresh();
  }

  function render(job) {
    const finished = FINISHED.includes(job.state);
    const stateClass = job.state === 'DEAD' ? 'badge-bad' : job.state === 'SUCCEEDED' ? 'badge-ok' : job.state === 'CANCELLED' ? '' : 'badge-warn';
    const field = (label, value, testid) => [h('dt', {}, label), h('dd', { testid }, value === undefined || value === null || value === '' ? '—' : value)];
    const delay = h('input', { id: 'reschedule-delay', type: 'number', min: 0, step: 1000, value: 60000, testid: 'reschedule-delay' });
    // An operator's change of a job, audited by the API for admin tokens: offered to those only.
    const mayChange = ctx.can.admin && !finished;
    const why = ctx.can.admin ? 'the job has finished' : 'needs the admin role (an operator\'s change, audited)';
    const cancel = h('button', { type: 'button', class: 'danger', testid: 'job-cancel', disabled: !mayChange, title: mayChange ? null : why }, 'Cancel job');
    const reschedule = h('button', { type: 'button', class: 'secondary', testid: 'job-reschedule', disabled: !mayChange, title: mayChange ? null : why }, 'Reschedule');
    cancel.addEventListener('click', () => act(() => del(base)));
    reschedule.addEventListener('click', () => act(() => post(base + '/reschedule', { delayMs: Number(delay.value) })));

    const attempts = (job.history || []).map((a) => h('tr', { testid: 'attempt-row' },
      h('td', { class: 'num' }, num(a.number)), h('td', { class: 'time' }, time(a.at)),
      h('td', { class: 'num' }, a.httpStatus ?? '—'), h('td', { testid: 'attempt-error' }, a.error || '')));

    replace(view,
      h('div', { class: 'grid' },
        h('section', { class: 'card', 'aria-label': 'Job details' },
          h('h2', {}, routeLink(job.topic, 'topics', job.topic), ' / ', h('span', { testid: 'job-title' }, job.id), ' ',
            h('span', { class: `badge ${stateClass}`, testid: 'job-state' }, job.state)),
          h('dl', { class: 'fields' },
            field('run at', `${time(job.runAt)} (${relative(job.runAt)})`),
            field('attempts', `${job.attempts} of ${job.maxAttempts}`, 'job-attempts'),
            field('delivery', job.delivery), field('callback', callbackText(job.callback), 'job-callback'),
            field('created', time(job.createdAt)), field('finished', time(job.finishedAt)),
            field('last error', job.lastError, 'job-last-error'))),
        h('section', { class: 'card', 'aria-label': 'Actions' },
          h('h2', {}, 'Actions'),
          h('form', { class: 'inline', on: { submit: (e) => e.preventDefault() } },
            h('label', { for: 'reschedule-delay' }, 'Run again in (ms)', delay), reschedule, cancel),
          finished ? h('p', { class: 'muted' }, `This job is ${job.state}: it can no longer be cancelled or rescheduled.`) : null,
          job.state === 'DEAD' ? h('p', {}, h('a', { href: '#/dead-letters?' + new URLSearchParams({ topic: job.topic, idPrefix: job.id }), testid: 'job-dead-letter' },
            'Its dead letter (replay or purge it there)')) : null)),
      h('h2', {}, 'Attempts'),
      table([{ label: '#', num: true }, { label: 'Ended' }, { label: 'HTTP', num: true }, { label: 'Error' }],
        attempts.length ? attempts : [emptyRow(4, 'No attempt yet.')], { 'aria-label': 'Attempts' }),
      h('h2', {}, 'Payload'),
      // The payload is text in a <pre>: markup in it stays characters on the screen.
      h('pre', { testid: 'job-payload', 'aria-label': 'Payload' }, pretty(job.payload)));
  }

  return () => live.stop();
}

/** A JSON payload indented; a string payload that itself holds JSON is indented too; anything else as it is. */
export function pretty(payload) {
  if (typeof payload === 'string') {
    try {
      return JSON.stringify(JSON.parse(payload), null, 2);
    } catch (notJson) {
      return payload;
    }
  }
  return JSON.stringify(payload, null, 2);
}
