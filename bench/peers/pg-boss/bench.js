'use strict';
// pg-boss delayed jobs under the delayq benchmark's W1/W2/W3 and churn (see bench/README.md).
// Started by the Java harness (io.delayq.bench.peers.PgNodePeer); the workloads are ../pg-common/driver.js.
// Producers: 8 async loops over one PgBoss instance (its pg pool: 10 connections by default), on one queue made by
// createQueue (pg-boss 10 keeps each queue's jobs in its own partition of pgboss.job).
//   single add: send(queue, payload, {startAfter: Date}); bulk: insert([...]) 1,000 jobs per call (one INSERT).
const PgBoss = require('pg-boss');
const driver = require('../pg-common/driver');

driver.run({
  name: 'pg-boss',
  short: 'pgb',
  workerScript: require('path').join(__dirname, 'worker.js'),
  async open(url, queue) {
    const boss = new PgBoss({ connectionString: url, ...(driver.variant.boss || {}) });
    boss.on('error', (e) => console.error('pg-boss producer error:', e && e.message));
    await boss.start(); // creates the schema: before the harness's baseline
    await boss.createQueue(queue);
    return {
      boss,
      add(id, payload, delayMs) {
        return boss.send(queue, payload, { startAfter: new Date(Date.now() + delayMs) });
      },
      addBulk(jobs) {
        const now = Date.now();
        return boss.insert(jobs.map((j) => ({ name: queue, data: j.data, startAfter: new Date(now + j.delayMs).toISOString() })));
      },
      close() { return boss.stop({ graceful: false, wait: true, timeout: 5000 }); },
    };
  },
  async jobsTable(producer, queue) {
    const rows = await producer.boss.getDb().executeSql('SELECT partition_name FROM pgboss.queue WHERE name = $1', [queue]);
    return 'pgboss.' + rows.rows[0].partition_name;
  },
});
