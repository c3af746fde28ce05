'use strict';
// The consumer side shared by the PostgreSQL peers' worker.js: receipt times go to the parent (driver.js) in small
// batches over IPC, as bench/peers/bullmq/worker.js does; 'start' opens the gate, 'stop' closes the consumer.
//   node worker.js <url> <queue> gated|open <variant json>

const [url, queue, mode, variantJson] = process.argv.slice(2);
const gated = mode === 'gated';
const variant = JSON.parse(variantJson || '{}');

let buffer = [];
function flush() {
  if (buffer.length > 0) {
    process.send({ receipts: buffer });
    buffer = [];
  }
}
setInterval(flush, 5);

/** Records one received job (its receipt time is the consumer's clock now). */
function received(id) {
  buffer.push(id, Date.now());
}

/**
 * Runs a consumer: `prepare()` connects (untimed), `start()` starts consuming (at once, or when the gate opens),
 * `stop()` closes it.
 */
function serve({ prepare, start, stop }) {
  process.on('message', async (m) => {
    if (m.cmd === 'start') {
      start().catch((e) => { console.error('consumer start failed', e && e.stack ? e.stack : e); process.exit(1); });
    } else if (m.cmd === 'stop') {
      flush();
      await stop().catch((e) => console.error('consumer stop failed', e && e.message));
      flush();
      process.exit(0);
    }
  });
  (async () => {
    await prepare();
    if (!gated) await start();
    process.send({ ready: true });
  })().catch((e) => { console.error('consumer failed', e && e.stack ? e.stack : e); process.exit(1); });
}

module.exports = { url, queue, gated, variant, received, serve };
