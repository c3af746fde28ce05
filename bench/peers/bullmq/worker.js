'use strict';
// The BullMQ consumer, in its own process like PEERS.md (so producer and consumer each get a core):
// one Worker with concurrency 8 that only records receipt times and sends them to the parent in small batches.
const { Worker } = require('bullmq');
const { connection } = require('./common');

const queueName = process.argv[2];
const gated = process.argv[3] === 'gated';
let buffer = [];
const flush = () => {
  if (buffer.length > 0) {
    process.send({ receipts: buffer });
    buffer = [];
  }
};
setInterval(flush, 5);

const worker = new Worker(queueName, async (job) => {
  buffer.push(job.data.id, Date.now());
}, { connection, concurrency: 8, autorun: !gated });

worker.on('error', (e) => console.error('worker error', e && e.message));

process.on('message', async (m) => {
  if (m.cmd === 'start') {
    worker.run().catch((e) => console.error('worker run failed', e && e.message));
  } else if (m.cmd === 'stop') {
    flush();
    await worker.close(true).catch(() => {});
    process.exit(0);
  }
});

worker.waitUntilReady().then(() => process.send({ ready: true }));
