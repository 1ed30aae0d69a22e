/**
 * The bench's verdict on the cost targets: a line per target, each judged from figures of the same run with its ratio
 * and command, and the missing ones named with the command that measures them.
 */
import assert from "node:assert/strict";
import { costVerdict, type Extras } from "./target_verdict.ts";
import { ENDPOINT_SCENARIO_IDS, SCENARIOS } from "./bench_scenarios.ts";
import type { ClientResult, ScenarioResult } from "./bench_types.ts";
import type { SoakMemory } from "./soak_rss.ts";

function scenario(id: string, clients: ClientResult[]): ScenarioResult {
  const s = SCENARIOS.find((x) => x.id === id);
  assert.ok(s, id);
  return { scenario: s, clients } as unknown as ScenarioResult;
}

const ours = (cpuUsPerRequest: number, requestsPerSec = 10_000): ClientResult => ({
  client: "ours",
  status: "ok",
  cpuUsPerRequest,
  requestsPerSec,
});

function find(lines: ReturnType<typeof costVerdict>, start: string) {
  const l = lines.find((x) => x.target.startsWith(start));
  assert.ok(l, `no line starting "${start}" in ${lines.map((x) => x.target).join(" | ")}`);
  return l;
}

Deno.test("the cost verdict judges CPU per request, wrk ÷ ours and each endpoint type against AIPerf", () => {
  const results = [
    scenario("rps-nonstream-c64", [
      ours(25, 20_000),
      { client: "wrk", status: "ok", requestsPerSec: 40_000 },
      { client: "aiperf", status: "ok", cpuUsPerRequest: 1500 },
    ]),
    scenario("ep-embeddings", [ours(50), { client: "aiperf", status: "ok", cpuUsPerRequest: 1500 }]),
    scenario("ep-messages", [ours(40), { client: "aiperf", status: "skipped", message: "AIPerf is not installed" }]),
  ];
  const lines = costVerdict(results, {});
  const cpu = find(lines, "client CPU ≤ 30 µs/request (rps-nonstream-c64)");
  assert.equal(cpu.pass, true);
  assert.match(cpu.detail, /25\.0 µs → PASS \(0\.83× target\); deno task bench --scenarios rps-nonstream-c64/);
  const wrk = find(lines, "wrk ÷ ours ≤ 1.6× requests/s (rps-nonstream-c64)");
  assert.equal(wrk.value, 2);
  assert.equal(wrk.pass, false);
  const chat = find(lines, "chat ≥ 40× AIPerf");
  assert.equal(chat.value, 60);
  assert.equal(chat.pass, true);
  const embeddings = find(lines, "embeddings ≥ 40× AIPerf");
  assert.equal(embeddings.value, 30);
  assert.equal(embeddings.pass, false);
  assert.match(embeddings.detail, /--scenarios ep-embeddings --clients ours,aiperf/);
  const messages = find(lines, "messages ≥ 40× AIPerf");
  assert.equal(messages.pass, undefined);
  assert.match(messages.detail, /pip install aiperf==0\.13\.0/);
  // Every endpoint type has its line, measured or not.
  for (const id of ENDPOINT_SCENARIO_IDS) assert.ok(lines.some((l) => l.target.endsWith(`(${id})`)), id);
  // Not run here: marked unjudged, with a command.
  for (const start of ["client CPU ≤ 30 µs/request (rps-stream-c64)", "memory flat", "token counting", "bundle's"]) {
    const l = find(lines, start);
    assert.equal(l.pass, undefined, start);
    assert.match(l.detail, /deno (task|run)/, start);
  }
});

Deno.test("the memory verdict compares a long soak's peak with a 1-minute one's and reads bytes per request from the slope", () => {
  // `peak`: the whole run's, its results' writing included; 20 MiB less while measuring.
  const soak = (minutes: number, peak: number, slope: number, requests: number, measuring = peak - 20): SoakMemory => ({
    minutes,
    requests,
    rss: { peakMeasuringMiB: measuring, peakMiB: peak, slopeMiBPerMin: slope, tenths: [] },
    retainedBytesPerRequest: 90,
    balanced: true,
  });
  // 300,000 requests a minute; 0.5 MiB a minute is 1.75 B per request, under the columns' 90 B: 0 beyond them.
  const extras: Extras = { soak: { short: soak(1, 200, 0, 300_000), long: soak(30, 260, 0.5, 9_000_000) } };
  const lines = costVerdict([], extras);
  const ratio = find(lines, "memory flat");
  assert.equal(ratio.value, 1.3);
  assert.equal(ratio.pass, true);
  const peak = find(lines, "long soak's peak RSS ≤ 400 MB");
  assert.equal(peak.value, 260 * 2 ** 20 / 1e6);
  assert.equal(peak.pass, true);
  const perRequest = find(lines, "RSS kept per finished request");
  assert.equal(perRequest.value, 0);
  assert.equal(perRequest.pass, true);
  const grown: Extras = { soak: { short: soak(1, 200, 0, 300_000), long: soak(30, 420, 120, 9_000_000) } };
  const bad = costVerdict([], grown);
  assert.equal(find(bad, "memory flat").pass, false);
  assert.equal(find(bad, "long soak's peak RSS").pass, false);
  assert.equal(find(bad, "RSS kept per finished request").value, 120 * 2 ** 20 / 300_000 - 90);
  assert.equal(find(bad, "RSS kept per finished request").pass, false);
  // Flat while measuring is not enough: the peak while the results are written counts.
  const late: Extras = { soak: { short: soak(1, 200, 0, 300_000), long: soak(30, 450, 0, 9_000_000, 250) } };
  assert.equal(find(costVerdict([], late), "memory flat").pass, false);
  assert.equal(find(costVerdict([], late), "long soak's peak RSS").value, 450 * 2 ** 20 / 1e6);
  assert.equal(find(costVerdict([], late), "long soak's peak RSS").pass, false);
});
