// ---- docs/callbacks.md: begin (DocumentedVerifiersTest: the guide shows the lines between begin and end, word for word)
// Verifies a delayq callback or dead notice (Delayq-Signature, scheme v2). Node 12+, no dependencies.
//
//   const verified = verify([Buffer.from("my-secret")], "callback", req.headers, rawBody);
//   if (verified.topic !== "orders") reject();   // genuine, but another topic's: not yours
//
// kind is what this endpoint expects: "callback" for callbacks, "dead" for an onDead target. Never take it from the
// request. headers: Node's req.headers (lower-case names); rawBody: a Buffer of the body exactly as received.
"use strict";
const crypto = require("crypto");

const TOLERANCE_SECONDS = 300;
const ATTEMPT_HEADER = { callback: "delayq-attempt", dead: "delayq-notice-attempt" };

function verify(secrets, kind, headers, rawBody, tolerance = TOLERANCE_SECONDS, now = Date.now() / 1000) {
  const topic = headers["delayq-topic"], id = headers["delayq-id"];
  const attempt = headers[ATTEMPT_HEADER[kind]], signature = headers["delayq-signature"];
  if ([topic, id, attempt, signature].includes(undefined)) throw new Error("not a delayq " + kind + " request");
  let t = null;
  const candidates = [];
  for (const part of signature.split(",")) {
    const [key, value] = part.trim().split("=", 2);
    if (key === "t") t = Number.parseInt(value, 10);
    else if (key === "v2") candidates.push(Buffer.from(value, "hex"));
  }
  if (t === null || Number.isNaN(t) || candidates.length === 0) throw new Error("no t= or no v2= in Delayq-Signature");
  if (Math.abs(now - t) > tolerance) throw new Error("signature time too far from this clock: a replay, or a clock to fix");
  const signed = Buffer.concat([Buffer.from(`v2\n${kind}\n${topic}\n${id}\n${attempt.trim()}\n${t}\n`, "utf8"), rawBody]);
  for (const secret of secrets) {
    const expected = crypto.createHmac("sha256", secret).update(signed).digest();
    if (candidates.some((c) => c.length === expected.length && crypto.timingSafeEqual(c, expected))) {
      return { kind, topic, id, attempt: Number.parseInt(attempt, 10), t };
    }
  }
  throw new Error("no v2 signature matches");
}

module.exports = { verify };
// ---- docs/callbacks.md: end

if (require.main === module) {
  // For delayq's own test: verify.js <kind> <secret> <headers file: Name: value lines> <body file> [now]
  const fs = require("fs");
  const [kind, secret, headerFile, bodyFile, now] = process.argv.slice(2);
  const headers = {};
  for (const line of fs.readFileSync(headerFile, "utf8").split("\n")) {
    const at = line.indexOf(":");
    if (at > 0) headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
  }
  try {
    const args = now === undefined ? [] : [TOLERANCE_SECONDS, Number(now)];
    console.log(JSON.stringify(verify([Buffer.from(secret, "utf8")], kind, headers, fs.readFileSync(bodyFile), ...args)));
  } catch (e) {
    console.log("invalid: " + e.message);
    process.exit(1);
  }
}
