'use strict';
// The workload driver shared by the PostgreSQL peers (graphile-worker, pg-boss): W1, W2, W3 and the churn, written
// like bench/peers/bullmq/bench.js, and measured like the Java driver. Node built-ins only, so that both peers'
// folders can require it without installing anything here.
//
// Started by the Java harness (io.delayq.bench.peers.PgNodePeer) as `node bench.js W1,W2,W3,CHURN <reps>` with the
// sizes in BENCH_* environment variables. Everything measured on the server side (PostgreSQL CPU, WAL, table sizes,
// table statistics during the churn) is measured by the harness, which also makes a fresh database for every run:
// the script asks on stdout with a line `REQ {json}` and reads the answer, one JSON line, on stdin. It prints one
// `RESULT {json}` line per repetition; anything else it prints is passed through to the harness's log.
const { fork } = require('child_process');
const readline = require('readline');

const env = (k, d) => Number(process.env[k] || d);
const S = {
  w1: env('BENCH_W1', 100000), w2: env('BENCH_W2', 20000), w2span: env('BENCH_W2_SPAN', 10000),
  w2idle: env('BENCH_W2_IDLE', 1000), w3: env('BENCH_W3', 100000), lost: env('BENCH_LOST', 30000),
  grace: env('BENCH_GRACE', 2000), warmSingle: env('BENCH_WARM_SINGLE', 100000), warmBulk: env('BENCH_WARM_BULK', 20000),
  warmDrain: env('BENCH_WARM_DRAIN', 20000), churnRate: env('BENCH_CHURN_RATE', 500),
  churnSeconds: env('BENCH_CHURN_SECONDS', 600), churnMaxDelay: env('BENCH_CHURN_MAX_DELAY', 5000),
};
const PRODUCERS = 8;
const BULK = 1000;
const body = JSON.parse(process.env.BENCH_BODY || '{"pad":"' + 'x'.repeat(190) + '"}');
const baseVariant = JSON.parse(process.env.BENCH_VARIANT || '{}');
// The variant's "churn" object overrides its settings during the churn only (e.g. pg-boss's archive interval).
let variant = baseVariant;
const variantFor = (wl) => (wl === 'CHURN' && baseVariant.churn ? { ...baseVariant, ...baseVariant.churn } : baseVariant);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const data = (id) => ({ id, body });

// ---- the request/answer channel to the harness
const answers = [];
const waiting = [];
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const w = waiting.shift();
  if (w) w(JSON.parse(line));
  else answers.push(JSON.parse(line));
});
function ask(req) {
  process.stdout.write('REQ ' + JSON.stringify(req) + '\n');
  return new Promise((resolve) => {
    const a = answers.shift();
    if (a) resolve(a);
    else waiting.push(resolve);
  }).then((a) => {
    if (a.error) throw new Error('harness: ' + a.error);
    return a;
  });
}

async function produce(n, fn) {
  const loops = [];
  for (let p = 0; p < PRODUCERS; p++) {
    loops.push(fn(Math.floor((n * p) / PRODUCERS), Math.floor((n * (p + 1)) / PRODUCERS), p));
  }
  await Promise.all(loops);
}

/** The peer's consumer in a child process (so producers and consumers each get a core, as for BullMQ). */
function startWorker(peer, url, queue, gated) {
  const receipts = { first: new Float64Array(0), count: null, distinct: 0, last: 0, total: 0, onAll: null, n: 0 };
  const child = fork(peer.workerScript, [url, queue, gated ? 'gated' : 'open', JSON.stringify(variant)],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let failed = null;
  const ready = new Promise((resolve, reject) => {
    child.on('message', (m) => { if (m.ready) resolve(); });
    child.on('exit', (code) => { failed = new Error(`${peer.name} worker exited with ${code}`); reject(failed); });
  });
  child.on('message', (m) => {
    if (!m.receipts) return;
    const r = m.receipts;
    for (let i = 0; i < r.length; i += 2) {
      const id = r[i];
      const t = r[i + 1];
      receipts.total++;
      if (id < 0 || id >= receipts.n) continue;
      if (receipts.count[id]++ === 0) {
        receipts.first[id] = t;
        if (t > receipts.last) receipts.last = t;
        if (++receipts.distinct === receipts.n && receipts.onAll) receipts.onAll();
      }
    }
  });
  return {
    ready, receipts,
    expect(n) { receipts.n = n; receipts.first = new Float64Array(n); receipts.count = new Int32Array(n); },
    waitAll(timeoutMs) {
      if (receipts.distinct === receipts.n) return Promise.resolve(true);
      return new Promise((resolve) => {
        const t = setTimeout(() => resolve(false), Math.max(0, timeoutMs));
        receipts.onAll = () => { clearTimeout(t); resolve(true); };
      });
    },
    start() { child.send({ cmd: 'start' }); },
    async stop() {
      if (failed) return;
      const exited = new Promise((r) => child.on('exit', r));
      child.send({ cmd: 'stop' });
      await Promise.race([exited, sleep(15000)]);
      child.kill('SIGKILL');
    },
  };
}

function stats(receipts, due) {
  const late = [];
  let lost = 0; let dup = 0;
  for (let i = 0; i < receipts.n; i++) {
    if (receipts.count[i] === 0) lost++;
    else late.push(receipts.first[i] - due[i]);
    if (receipts.count[i] > 1) dup++;
  }
  return { late, lost, dup };
}

let runNo = 0;
async function fresh(peer) {
  const { url } = await ask({ op: 'fresh' });
  runNo++;
  const queue = `bench_${peer.short}_${process.pid}_${runNo}`;
  const producer = await peer.open(url, queue);
  return { url, queue, producer };
}

const randomW1Delay = () => 10000 + Math.floor(Math.random() * 50001);

async function enqueueRun(peer, n, bulk) {
  const { producer } = await fresh(peer);
  const { mark } = await ask({ op: 'mark' });
  const t0 = process.hrtime.bigint();
  await produce(n, async (from, to) => {
    if (bulk) {
      for (let s = from; s < to; s += BULK) {
        const jobs = [];
        for (let id = s; id < Math.min(to, s + BULK); id++) jobs.push({ id, data: data(id), delayMs: randomW1Delay() });
        await producer.addBulk(jobs);
      }
    } else {
      for (let id = from; id < to; id++) await producer.add(id, data(id), randomW1Delay());
    }
  });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cost = await ask({ op: 'cost', mark, jobs: n });
  await producer.close();
  return { jobs_per_s: n / seconds, ...cost.metrics };
}

async function w1(peer, rep) {
  const single = await enqueueRun(peer, S.w1, false);
  const bulk = await enqueueRun(peer, S.w1, true);
  const m = { jobs: S.w1, ...single };
  for (const [k, v] of Object.entries(bulk)) m['bulk_' + k] = v;
  return { table: 'W1', rep, metrics: m };
}

async function w2(peer, rep) {
  const n = S.w2;
  const { url, queue, producer } = await fresh(peer);
  const w = startWorker(peer, url, queue, false);
  w.expect(n);
  await w.ready;
  await sleep(S.w2idle);
  const { mark } = await ask({ op: 'mark' });
  const due = new Float64Array(n);
  const t0 = process.hrtime.bigint();
  await produce(n, async (from, to) => {
    for (let id = from; id < to; id++) {
      const delay = Math.floor(Math.random() * (S.w2span + 1));
      due[id] = Date.now() + delay;
      await producer.add(id, data(id), delay, due[id]);
    }
  });
  const enqSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  let maxDue = -Infinity; let minDue = Infinity;
  for (const d of due) { if (d > maxDue) maxDue = d; if (d < minDue) minDue = d; }
  await w.waitAll(maxDue + S.lost - Date.now());
  const cost = await ask({ op: 'cost', mark, jobs: n, bytes: false });
  await sleep(S.grace);
  await w.stop();
  await producer.close();
  const { late, lost, dup } = stats(w.receipts, due);
  const m = { jobs: n, enqueue_jobs_per_s: n / enqSeconds, due_per_s: n / Math.max(0.001, (maxDue - minDue) / 1000),
    lost, duplicated: dup, ...cost.metrics };
  return { table: 'W2', rep, metrics: m, lateness: late };
}

async function drain(peer, n, rep) {
  const { url, queue, producer } = await fresh(peer);
  const w = startWorker(peer, url, queue, true);
  w.expect(n);
  await w.ready;
  const { mark } = await ask({ op: 'mark' });
  const due = new Float64Array(n);
  const t0 = Date.now();
  await produce(n, async (from, to) => {
    for (let id = from; id < to; id++) {
      due[id] = Date.now() + 1;
      await producer.add(id, data(id), 1, due[id]);
    }
  });
  const tEnq = Date.now();
  w.start();
  await w.waitAll(Math.max(120000, n / 2));
  const last = w.receipts.last;
  const cost = await ask({ op: 'cost', mark, jobs: n, bytes: false });
  await sleep(S.grace);
  await w.stop();
  await producer.close();
  const got = w.receipts.distinct;
  const { lost, dup } = stats(w.receipts, due);
  const m = { jobs: n, drain_jobs_per_s: got / Math.max(0.001, (last - tEnq) / 1000),
    e2e_jobs_per_s: got / Math.max(0.001, (last - t0) / 1000), enqueue_jobs_per_s: n / Math.max(0.001, (tEnq - t0) / 1000),
    lost, duplicated: dup, ...cost.metrics };
  return { table: 'W3', rep, metrics: m };
}

/** Steady churn: jobs enqueued at a fixed rate (delay 0..max) while consumers run; the harness samples the table. */
async function churn(peer, rep) {
  const rate = S.churnRate;
  const n = Math.max(1, Math.round(rate * S.churnSeconds));
  const { url, queue, producer } = await fresh(peer);
  const w = startWorker(peer, url, queue, false);
  w.expect(n);
  await w.ready;
  const table = await peer.jobsTable(producer, queue);
  const { mark } = await ask({ op: 'churn-start', table });
  const due = new Float64Array(n);
  const t0 = Date.now();
  await produce(n, async (from, to, p) => {
    for (let id = p; id < n; id += PRODUCERS) {
      const at = t0 + (id * 1000) / rate;
      const wait = at - Date.now();
      if (wait > 1) await sleep(wait);
      const delay = Math.floor(Math.random() * (S.churnMaxDelay + 1));
      due[id] = Date.now() + delay;
      await producer.add(id, data(id), delay, due[id]);
    }
  });
  const seconds = (Date.now() - t0) / 1000;
  const sampled = await ask({ op: 'churn-end', mark, jobs: n });
  let maxDue = -Infinity;
  for (const d of due) if (d > maxDue) maxDue = d;
  await w.waitAll(maxDue + S.lost - Date.now());
  await sleep(S.grace);
  await w.stop();
  await producer.close();
  const { late, lost, dup } = stats(w.receipts, due);
  const m = { jobs: n, rate_jobs_per_s: n / seconds, lost, duplicated: dup, ...sampled.metrics };
  return { table: 'CHURN', rep, metrics: m, lateness: late };
}

async function main(peer) {
  const workloads = (process.argv[2] || 'W1,W2,W3').split(',');
  const reps = Number(process.argv[3] || 3);
  const t = Date.now();
  if (S.warmSingle > 0) await enqueueRun(peer, S.warmSingle, false);
  if (S.warmBulk > 0) await enqueueRun(peer, S.warmBulk, true);
  if (S.warmDrain > 0) await drain(peer, S.warmDrain, 0);
  console.log(`  warm-up of ${peer.name} done in ${((Date.now() - t) / 1000).toFixed(1)} s (untimed)`);
  for (const wl of workloads) {
    variant = variantFor(wl);
    module.exports.variant = variant;
    for (let rep = 1; rep <= (wl === 'CHURN' ? 1 : reps); rep++) {
      let r;
      if (wl === 'W1') r = await w1(peer, rep);
      else if (wl === 'W2') r = await w2(peer, rep);
      else if (wl === 'W3') r = await drain(peer, S.w3, rep);
      else if (wl === 'CHURN') r = await churn(peer, rep);
      else continue;
      process.stdout.write('RESULT ' + JSON.stringify(r) + '\n');
    }
  }
  await ask({ op: 'done' });
  process.exit(0);
}

module.exports = {
  variant, // the settings of the workload running now (open() reads them)
  run(peer) {
    main(peer).catch((e) => { console.error(`${peer.name} bench failed:`, e && e.stack ? e.stack : e); process.exit(1); });
  },
};
