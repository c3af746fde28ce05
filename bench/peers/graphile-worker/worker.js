'use strict';
// The graphile-worker consumer, in its own process: one runner with concurrency 8 whose task only records the
// receipt. Its pg pool is connected before the gate opens (10 connections, graphile-worker's default size), so a
// gated start (W3) only runs run(): a migration check, LISTEN "jobs:insert", and the 8 workers' first get_job.
// Wake-ups: a NOTIFY from add_job/add_jobs nudges idle workers, who then ask for a job that is due now; a job due
// later is found by the next poll, every pollInterval (default 2,000 ms; BENCH_VARIANT may lower it).
// BENCH_VARIANT may also turn on graphile-worker's documented batching (localQueue, completeJobBatchDelay).
const { run, Logger } = require('graphile-worker');
const { Pool } = require('pg');
const { url, variant, received, serve } = require('../pg-common/consumer');

const CONCURRENCY = 8;
const POOL = Math.max(10, CONCURRENCY + 2); // graphile-worker's advice and default
const quiet = new Logger(() => (level, message) => {
  if (level === 'error') console.error('graphile-worker:', message);
});
let pool;
let runner;

serve({
  async prepare() {
    pool = new Pool({ connectionString: url, max: POOL });
    pool.on('error', (e) => console.error('graphile-worker pool:', e.message));
    pool.on('connect', (client) => client.on('error', (e) => console.error('graphile-worker pool client:', e.message)));
    const clients = [];
    for (let i = 0; i < POOL; i++) clients.push(await pool.connect());
    clients.forEach((c) => c.release());
  },
  async start() {
    const worker = {};
    if (variant.localQueueSize) worker.localQueue = { size: variant.localQueueSize };
    if (variant.completeJobBatchDelay !== undefined) worker.completeJobBatchDelay = variant.completeJobBatchDelay;
    runner = await run({
      pgPool: pool,
      concurrency: CONCURRENCY,
      pollInterval: variant.pollInterval || 2000,
      noHandleSignals: true,
      logger: quiet,
      taskList: { j: async (payload) => { received(payload.id); } },
      preset: { worker },
    });
  },
  async stop() {
    if (runner) await runner.stop();
    await pool.end();
  },
});
