'use strict';
// BullMQ delayed jobs under the delayq benchmark's W1/W2/W3 (see bench/README.md and /work/shared/PEERS.md).
// Started by the Java harness (io.delayq.bench.peers.BullmqPeer); prints one "RESULT {json}" line per repetition.
//   node bench.js W1,W2,W3 <reps>   with sizes in environment variables (BENCH_*), Redis at BENCH_REDIS_PORT.
const { Queue } = require('bullmq');
const IORedis = require('ioredis');
const { fork } = require('child_process');
const path = require('path');
const { connection, body } = require('./common');

const env = (k, d) => Number(process.env[k] || d);
const S = {
  w1: env('BENCH_W1', 100000), w2: env('BENCH_W2', 20000), w2span: env('BENCH_W2_SPAN', 10000),
  w2idle: env('BENCH_W2_IDLE', 1000), w3: env('BENCH_W3', 100000), lost: env('BENCH_LOST', 30000),
  grace: env('BENCH_GRACE', 2000), warmSingle: env('BENCH_WARM_SINGLE', 100000), warmBulk: env('BENCH_WARM_BULK', 20000),
  warmDrain: env('BENCH_WARM_DRAIN', 20000),
};
const PRODUCERS = 8;
const BULK = 1000;
const admin = new IORedis(connection);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const data = (id) => ({ id, body });
let runNo = 0;

async function info() {
  const text = await admin.info('everything');
  const m = {};
  for (const line of text.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0 && !line.startsWith('#')) m[line.slice(0, i)] = line.slice(i + 1).trim();
  }
  const cmds = {};
  for (const k of Object.keys(m)) {
    if (!k.startsWith('cmdstat_')) continue;
    const o = {};
    for (const kv of m[k].split(',')) { const [a, b] = kv.split('='); o[a] = Number(b); }
    cmds[k.slice(8)] = [o.calls || 0, o.usec || 0];
  }
  return { cpu: (Number(m.used_cpu_user) + Number(m.used_cpu_sys)) * 1000, mem: Number(m.used_memory), cmds };
}

const harness = (name) => /^(info|config|flushall)/i.test(name);

function cost(before, after, jobs, into) {
  let calls = 0;
  const per = {};
  for (const [k, v] of Object.entries(after.cmds)) {
    if (harness(k)) continue;
    const b = before.cmds[k] || [0, 0];
    const c = v[0] - b[0];
    if (c > 0) { per[k] = [c, v[1] - b[1]]; calls += c; }
  }
  into.redis_cpu_ms_per_1k = (after.cpu - before.cpu) / (jobs / 1000);
  into.redis_calls_per_job = calls / jobs;
  return per;
}

async function fresh() {
  await admin.flushall();
  runNo++;
  const name = `bench-bullmq-${process.pid}-${runNo}`;
  const queue = new Queue(name, { connection, defaultJobOptions: { removeOnComplete: true } });
  await queue.waitUntilReady();
  return { name, queue };
}

async function produce(n, fn) {
  const loops = [];
  for (let p = 0; p < PRODUCERS; p++) {
    const from = Math.floor((n * p) / PRODUCERS);
    const to = Math.floor((n * (p + 1)) / PRODUCERS);
    loops.push(fn(from, to));
  }
  await Promise.all(loops);
}

function startWorker(name, gated) {
  const receipts = { first: new Float64Array(0), count: null, distinct: 0, last: 0, total: 0, onAll: null, n: 0 };
  const child = fork(path.join(__dirname, 'worker.js'), [name, gated ? 'gated' : 'open'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = new Promise((resolve) => child.on('message', function onReady(m) { if (m.ready) resolve(); }));
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
    child, ready, receipts,
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
      const exited = new Promise((r) => child.on('exit', r));
      child.send({ cmd: 'stop' });
      await Promise.race([exited, sleep(10000)]);
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

async function enqueueRun(n, bulk) {
  const { queue } = await fresh();
  const mem0 = (await info()).mem;
  await admin.config('RESETSTAT');
  const before = await info();
  const t0 = process.hrtime.bigint();
  await produce(n, async (from, to) => {
    if (bulk) {
      for (let s = from; s < to; s += BULK) {
        const jobs = [];
        for (let id = s; id < Math.min(to, s + BULK); id++) {
          jobs.push({ name: 'j', data: data(id), opts: { delay: 10000 + Math.floor(Math.random() * 50001) } });
        }
        await queue.addBulk(jobs);
      }
    } else {
      for (let id = from; id < to; id++) {
        await queue.add('j', data(id), { delay: 10000 + Math.floor(Math.random() * 50001) });
      }
    }
  });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const after = await info();
  const out = { jobs_per_s: n / seconds, bytes_per_job: (after.mem - mem0) / n };
  const commands = cost(before, after, n, out);
  await queue.close();
  return { out, commands };
}

async function w1(rep) {
  const single = await enqueueRun(S.w1, false);
  const bulk = await enqueueRun(S.w1, true);
  const m = { jobs: S.w1, ...single.out, bulk_jobs_per_s: bulk.out.jobs_per_s, bulk_bytes_per_job: bulk.out.bytes_per_job,
    bulk_redis_cpu_ms_per_1k: bulk.out.redis_cpu_ms_per_1k, bulk_redis_calls_per_job: bulk.out.redis_calls_per_job };
  return { table: 'W1', rep, metrics: m, commands: single.commands };
}

async function w2(rep) {
  const n = S.w2;
  const { name, queue } = await fresh();
  const w = startWorker(name, false);
  w.expect(n);
  await w.ready;
  await sleep(S.w2idle);
  await admin.config('RESETSTAT');
  const before = await info();
  const due = new Float64Array(n);
  const t0 = process.hrtime.bigint();
  await produce(n, async (from, to) => {
    for (let id = from; id < to; id++) {
      const delay = Math.floor(Math.random() * (S.w2span + 1));
      due[id] = Date.now() + delay;
      await queue.add('j', data(id), { delay });
    }
  });
  const enqSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  let maxDue = -Infinity; let minDue = Infinity;
  for (const d of due) { if (d > maxDue) maxDue = d; if (d < minDue) minDue = d; }
  await w.waitAll(maxDue + S.lost - Date.now());
  const after = await info();
  await sleep(S.grace);
  await w.stop();
  const m = { jobs: n, enqueue_jobs_per_s: n / enqSeconds, due_per_s: n / Math.max(0.001, (maxDue - minDue) / 1000) };
  const commands = cost(before, after, n, m);
  const { late, lost, dup } = stats(w.receipts, due);
  m.lost = lost; m.duplicated = dup;
  await queue.close();
  return { table: 'W2', rep, metrics: m, commands, lateness: late };
}

async function drain(n, rep) {
  const { name, queue } = await fresh();
  const w = startWorker(name, true);
  w.expect(n);
  await w.ready;
  await admin.config('RESETSTAT');
  const before = await info();
  const due = new Float64Array(n);
  const t0 = Date.now();
  await produce(n, async (from, to) => {
    for (let id = from; id < to; id++) {
      due[id] = Date.now() + 1;
      await queue.add('j', data(id), { delay: 1 });
    }
  });
  const tEnq = Date.now();
  w.start();
  await w.waitAll(Math.max(120000, n / 2));
  const last = w.receipts.last;
  const after = await info();
  await sleep(S.grace);
  await w.stop();
  const got = w.receipts.distinct;
  const m = { jobs: n, drain_jobs_per_s: got / Math.max(0.001, (last - tEnq) / 1000),
    e2e_jobs_per_s: got / Math.max(0.001, (last - t0) / 1000), enqueue_jobs_per_s: n / Math.max(0.001, (tEnq - t0) / 1000) };
  const commands = cost(before, after, n, m);
  const { lost, dup } = stats(w.receipts, due);
  m.lost = lost; m.duplicated = dup;
  await queue.close();
  return { table: 'W3', rep, metrics: m, commands };
}

async function main() {
  const workloads = (process.argv[2] || 'W1,W2,W3').split(',');
  const reps = Number(process.argv[3] || 3);
  const t = Date.now();
  await enqueueRun(S.warmSingle, false);
  await enqueueRun(S.warmBulk, true);
  await drain(S.warmDrain, 0);
  await admin.flushall();
  console.log(`  warm-up of bullmq done in ${((Date.now() - t) / 1000).toFixed(1)} s (untimed)`);
  for (const wl of workloads) {
    for (let rep = 1; rep <= reps; rep++) {
      let r;
      if (wl === 'W1') r = await w1(rep);
      else if (wl === 'W2') r = await w2(rep);
      else if (wl === 'W3') r = await drain(S.w3, rep);
      else continue;
      console.log('RESULT ' + JSON.stringify(r));
    }
  }
  await admin.flushall();
  await admin.quit();
  process.exit(0);
}

main().catch((e) => { console.error('bullmq bench failed:', e && e.stack ? e.stack : e); process.exit(1); });
