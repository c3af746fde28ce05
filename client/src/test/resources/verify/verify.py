# ---- docs/callbacks.md: begin (DocumentedVerifiersTest: the guide shows the lines between begin and end, word for word)
"""Verifies a delayq callback or dead notice (Delayq-Signature, scheme v2). Python 3.7+, standard library only.

    verified = verify(secrets=[b"my-secret"], kind="callback", headers=request.headers, body=raw_body)
    if verified["topic"] != "orders": reject()   # genuine, but another topic's: not yours

kind is what this endpoint expects: "callback" for callbacks, "dead" for an onDead target. Never take it from the
request. headers is any case-insensitive mapping of the request's headers; body the raw bytes as received.
"""
import hashlib
import hmac
import time

TOLERANCE_SECONDS = 300
ATTEMPT_HEADER = {"callback": "Delayq-Attempt", "dead": "Delayq-Notice-Attempt"}


class InvalidSignature(Exception):
    pass


def verify(secrets, kind, headers, body, tolerance=TOLERANCE_SECONDS, now=None):
    """Returns {"kind", "topic", "id", "attempt", "t"} when the request is genuine and fresh; raises InvalidSignature."""
    topic, job_id = headers.get("Delayq-Topic"), headers.get("Delayq-Id")
    attempt, signature = headers.get(ATTEMPT_HEADER[kind]), headers.get("Delayq-Signature")
    if None in (topic, job_id, attempt, signature):
        raise InvalidSignature("not a delayq " + kind + " request")
    t, candidates = None, []
    for part in signature.split(","):
        key, _, value = part.strip().partition("=")
        if key == "t":
            t = int(value)
        elif key == "v2":
            candidates.append(value)
    if t is None or not candidates:
        raise InvalidSignature("no t= or no v2= in Delayq-Signature")
    if abs((time.time() if now is None else now) - t) > tolerance:
        raise InvalidSignature("signature time too far from this clock: a replay, or a clock to fix")
    signed = ("v2\n%s\n%s\n%s\n%s\n%d\n" % (kind, topic, job_id, attempt.strip(), t)).encode("utf-8") + body
    for secret in secrets:
        expected = hmac.new(secret, signed, hashlib.sha256).hexdigest()
        if any(hmac.compare_digest(expected, candidate) for candidate in candidates):
            return {"kind": kind, "topic": topic, "id": job_id, "attempt": int(attempt), "t": t}
    raise InvalidSignature("no v2 signature matches")
# ---- docs/callbacks.md: end


if __name__ == "__main__":
    # For delayq's own test: verify.py <kind> <secret> <headers file: Name: value lines> <body file> [now]
    import json
    import sys

    class Headers(dict):
        def get(self, name, default=None):
            return super().get(name.lower(), default)

    with open(sys.argv[3], encoding="utf-8") as lines:
        headers = Headers((k.strip().lower(), v.strip()) for k, _, v in (l.partition(":") for l in lines) if k)
    with open(sys.argv[4], "rb") as raw:
        body = raw.read()
    try:
        now = float(sys.argv[5]) if len(sys.argv) > 5 else None
        print(json.dumps(verify([sys.argv[2].encode("utf-8")], sys.argv[1], headers, body, now=now)))
    except InvalidSignature as e:
        print("invalid: %s" % e)
        sys.exit(1)
