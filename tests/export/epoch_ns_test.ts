import assert from "node:assert/strict";
import { epochNs, epochNsDigits, isoUtcMicros, writeEpochNs } from "../../src/export/epoch_ns.ts";
import { JsonBytes } from "../../src/export/json_bytes.ts";

Deno.test("epochNs keeps every nanosecond digit beyond 2^53", () => {
  // origin 1 759 813 207 532 ms + 0.900363 ms → 1 759 813 207 532 900 363 ns
  const ns = epochNs(1_759_813_207_532, 0.900363);
  assert.equal(ns.toString(), "1759813207532900363");
  assert.ok(ns > BigInt(Number.MAX_SAFE_INTEGER));
  // a float would have rounded the last digits away
  assert.notEqual(String(Number(ns)), ns.toString());
});

Deno.test("epochNs adds a fractional time origin and a run-clock offset", () => {
  // 1 759 813 207 532.5 ms + 1 234.25 ms = 1 759 813 208 766.75 ms
  assert.equal(epochNs(1_759_813_207_532.5, 1234.25).toString(), "1759813208766750000");
});

Deno.test("isoUtcMicros prints Python's isoformat in UTC with microseconds", () => {
  const ms = Date.UTC(2025, 9, 17, 20, 22, 8, 939) + 0.332;
  assert.equal(isoUtcMicros(ms), "2025-10-17T20:22:08.939332");
  assert.equal(isoUtcMicros(Date.UTC(2025, 0, 2, 3, 4, 5)), "2025-01-02T03:04:05");
  assert.equal(isoUtcMicros(Date.UTC(2025, 0, 2, 3, 4, 5, 7)), "2025-01-02T03:04:05.007000");
});

Deno.test("epochNsDigits writes the same digits as epochNs, ns padded to six, across ms boundaries", () => {
  // Hand-checked: origin 1759813207532.5 ms + 1234.25 ms = 1759813208766.75 ms.
  assert.equal(epochNsDigits(1_759_813_207_532.5, 1234.25), "1759813208766750000");
  assert.equal(epochNsDigits(1_759_813_207_532, 0.000007), "1759813207532000007"); // 7 ns: five zeros of padding
  assert.equal(epochNsDigits(1_759_813_207_532, 3), "1759813207535000000"); // a whole ms: six zeros
  assert.equal(epochNsDigits(1_759_813_207_532.25, -0.5), "1759813207531750000"); // before run-clock 0
  const origin = 1_759_813_207_532.123456;
  for (let i = 0; i < 2000; i++) {
    const t = (i - 100) * 987.654321 + i / 7;
    assert.equal(epochNsDigits(origin, t), epochNs(origin, t).toString(), `t = ${t}`);
  }
});

Deno.test("writeEpochNs writes epochNsDigits' bytes, its ms digits reused only while the ms count is the same", () => {
  const cache = { ms: NaN, digits: "" };
  const buf = new Uint8Array(64);
  const text = (end: number) => new TextDecoder().decode(buf.subarray(3, end));
  // Hand-checked, as above; the second shares the first's ms count, the third moves to the next ms.
  assert.equal(text(writeEpochNs(1_759_813_207_532.5, 1234.25, buf, 3, cache)), "1759813208766750000");
  assert.equal(text(writeEpochNs(1_759_813_207_532.5, 1234.250007, buf, 3, cache)), "1759813208766750007");
  assert.equal(text(writeEpochNs(1_759_813_207_532.5, 1234.5, buf, 3, cache)), "1759813208767000000");
  assert.equal(text(writeEpochNs(1_759_813_207_532.5, 1233.5, buf, 3, cache)), "1759813208766000000");
  // Before 1970: nothing written.
  assert.equal(writeEpochNs(0, -5, buf, 3, cache), -1);
  const origin = 1_759_813_207_532.123456;
  let seed = 11;
  const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
  const out = new JsonBytes(16);
  for (let i = 0; i < 3000; i++) {
    // Runs of times within one ms, then jumps back and forth.
    const t = rand() < 0.7 ? i * 0.000731 : (rand() - 0.1) * 1e6;
    out.reset();
    out.epochNs(origin, t);
    assert.equal(out.text(), epochNs(origin, t).toString(), `t = ${t}`);
  }
  out.reset();
  out.epochNs(0.5, -1); // before 1970 the digits still come out exact, through BigInt
  assert.equal(out.text(), epochNsDigits(0.5, -1));
});
