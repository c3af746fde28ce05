'use strict';
// Shared by bench.js and worker.js: connection options and the job body (the Java harness passes the same
// 200-byte body in BENCH_BODY so every implementation carries identical jobs).
const port = Number(process.env.BENCH_REDIS_PORT || 6379);
const connection = { host: '127.0.0.1', port, maxRetriesPerRequest: null };
const body = JSON.parse(process.env.BENCH_BODY || '{"pad":"' + 'x'.repeat(190) + '"}');
module.exports = { connection, body };
