'use strict';
// graphile-worker scheduled jobs under the delayq benchmark's W1/W2/W3 and churn (see bench/README.md).
// Started by the Java harness (io.delayq.bench.peers.PgNodePeer); the workloads are ../pg-common/driver.js.
// Producers: 8 async loops over one WorkerUtils on a pg pool of 10 connections (graphile-worker's default size).
//   single add: addJob('j', payload, {runAt}); bulk: addJobs([...]) 1,000 jobs per call (one add_jobs() call).
// No queueName: a named job queue runs its jobs one at a time.
const { makeWorkerUtils, Logger } = require('graphile-worker');
const { Pool } = require('pg');
const driver = require('../pg-common/driver');

const quiet = new Logger(() => (level, message) => {
  if (level === 'error') console.error('graphile-worker:', message);
});

driver.run({
  name: 'graphile-worker',
  short: 'gw',
  workerScript: require('path').join(__dirname, 'worker.js'),
  async open(url) {
    const pool = new Pool({ connectionString: url, max: 10 });
    pool.on('error', (e) => console.error('graphile-worker producer pool:', e.message));
    pool.on('connect', (client) => client.on('error', (e) => console.error('graphile-worker producer pool client:', e.message)));
    const utils = await makeWorkerUtils({ pgPool: pool, logger: quiet });
    await utils.migrate(); // before the harness's baseline: the schema is not part of the jobs' cost
    return {
      utils,
      add(id, payload, delayMs) {
        return utils.addJob('j', payload, { runAt: new Date(Date.now() + delayMs) });
      },
      addBulk(jobs) {
        const now = Date.now();
        return utils.addJobs(jobs.map((j) => ({ identifier: 'j', payload: j.data, runAt: new Date(now + j.delayMs) })));
      },
      async close() {
        await utils.release();
        await pool.end();
      },
    };
  },
  async jobsTable() {
    return 'graphile_worker._private_jobs';
  },
});
