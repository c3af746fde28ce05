'use strict';
// The pg-boss consumer, in its own process: 8 workers (8 work() calls on one started PgBoss; pg-boss 10 has no
// concurrency option, each work() is one polling loop) whose handler only records the receipts.
// Wake-ups: polling only. Each worker fetches up to batchSize jobs whose start_after has passed, runs the handler,
// completes them, then sleeps until pollingIntervalSeconds after the fetch began: 0.5 s here, pg-boss 10's minimum
// (the default is 2 s). So one worker takes at most batchSize jobs per 0.5 s; batchSize is 1,000 (pg-boss's default
// is 1, which caps 8 workers at 16 jobs/s) unless BENCH_VARIANT says otherwise.
const PgBoss = require('pg-boss');
const { url, queue, variant, received, serve } = require('../pg-common/consumer');

const WORKERS = 8;
let boss;

serve({
  async prepare() {
    boss = new PgBoss({ connectionString: url, ...(variant.boss || {}) });
    boss.on('error', (e) => console.error('pg-boss worker error:', e && e.message));
    await boss.start();
  },
  async start() {
    const options = { pollingIntervalSeconds: variant.pollingIntervalSeconds || 0.5, batchSize: variant.batchSize || 1000 };
    for (let i = 0; i < WORKERS; i++) {
      await boss.work(queue, options, async (jobs) => {
        for (const job of jobs) received(job.data.id);
      });
    }
  },
  async stop() {
    await boss.stop({ graceful: false, wait: true, timeout: 5000 });
  },
});
