import { deepStrictEqual, match, throws } from "node:assert/strict";
import { StallDetector } from "../../src/transport/stall_detector.ts";
import type { TransportActivity } from "../../src/transport/http_client.ts";

const act = (
  lastDataAt: number,
  stages: TransportActivity["stages"],
  target = "127.0.0.1:8000",
): TransportActivity => ({
  target,
  lastDataAt,
  stages,
  inFlight: Object.values(stages).reduce((a, b) => a + (b ?? 0), 0),
});

Deno.test("StallDetector says once when in-flight requests get no byte for quietMs, naming target and stages", () => {
  const d = new StallDetector(10_000);
  deepStrictEqual(d.check(0, [act(0, { "waiting for the response": 3 })]), []);
  deepStrictEqual(d.check(9_999, [act(0, { "waiting for the response": 3 })]), []);
  const notice = d.check(10_000, [act(0, { "waiting for the response": 3, connecting: 1 })]);
  deepStrictEqual(notice.length, 1);
  match(notice[0], /^No response data from 127\.0\.0\.1:8000 for 10 s with 4 requests in flight/);
  match(notice[0], /3 waiting for the response, 1 connecting/);
  deepStrictEqual(d.check(20_000, [act(0, { "waiting for the response": 4 })]), [], "once per stall");
  // Bytes flow again: re-armed, and a new quiet spell counts from the last read.
  deepStrictEqual(d.check(21_000, [act(20_500, { "reading the response body": 4 })]), []);
  deepStrictEqual(d.check(30_400, [act(20_500, { "reading the response body": 4 })]), []);
  deepStrictEqual(d.check(30_500, [act(20_500, { "reading the response body": 4 })]).length, 1);
});

Deno.test("StallDetector: nothing in flight is not a stall, and the quiet spell starts when requests start", () => {
  const d = new StallDetector(1000);
  deepStrictEqual(d.check(0, [act(0, {})]), []);
  deepStrictEqual(d.check(5000, [act(0, {})]), []);
  // Requests start at 5000 after a long idle: not stalled until 6000.
  deepStrictEqual(d.check(5500, [act(0, { "waiting for the response": 1 })]), []);
  deepStrictEqual(d.check(5999, [act(0, { "waiting for the response": 1 })]), []);
  deepStrictEqual(d.check(6000, [act(0, { "waiting for the response": 1 })]).length, 1);
});

Deno.test("StallDetector sums shards of one target and keeps targets apart", () => {
  const d = new StallDetector(1000);
  const a = "127.0.0.1:1";
  const b = "127.0.0.1:2";
  d.check(0, [act(0, { connecting: 1 }, a), act(0, { connecting: 2 }, a), act(0, { connecting: 1 }, b)]);
  const notices = d.check(1000, [
    act(0, { connecting: 1 }, a),
    act(0, { connecting: 2 }, a),
    act(900, { connecting: 1 }, b),
  ]);
  deepStrictEqual(notices.length, 1);
  match(notices[0], /127\.0\.0\.1:1 .*3 requests in flight \(3 connecting\)/);
  throws(() => new StallDetector(0), /must be above 0/);
});
