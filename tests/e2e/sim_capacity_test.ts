/**
 * serve-sim's capacity model with real processes: `--slots 4`, TTFT 40 ms, ITL 10 ms and 9 output tokens give a
 * service time S = 40 + 10 × 8 = 120 ms. A concurrency sweep with the real CLI shows TTFT flat at 40 ms up to the
 * knee (4 clients) and ttft + S × (C − 4) / 4 past it (160 ms at 8, 280 ms at 12), while throughput stays at
 * 4 / S = 33 requests/s; the server's own queue-time histogram counts the wait.
 */
import assert from "node:assert/strict";
import { assertExit, runCli, startSim, tempDir } from "./cli_harness.ts";

Deno.test("serve-sim --slots: TTFT is flat below the knee and grows by the queue wait above it", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--slots", "4", "--ttft", "40", "--itl", "10", "--seed", "1"]);
  const sweep = await runCli([
    "profile",
    "--url",
    sim.url,
    "-m",
    "sim-model",
    "--endpoint-type",
    "chat",
    "--streaming",
    "--synthetic-input-tokens-mean",
    "20",
    "--output-tokens-mean",
    "9",
    "--extra-inputs",
    "ignore_eos:true",
    "--concurrency",
    "2,4,8,12",
    "--request-count",
    "48",
    "--warmup-request-count",
    "8",
    "--ui-type",
    "none",
    "--artifact-dir",
    "sw",
  ], { cwd: tmp.path, timeoutMs: 90_000 });
  assertExit(sweep, 0);
  const cmp = await runCli(["compare", "sw", "--metrics", "ttft,rps", "--stats", "p50", "--json"], { cwd: tmp.path });
  assertExit(cmp, 0);
  const points = JSON.parse(cmp.stdout).sweep.points as { load: number; values: [number, number] }[];
  const at = (c: number) => points.find((p) => p.load === c)!.values;
  const service = 40 + 10 * 8;
  const expected = (c: number) => 40 + service * Math.max(0, c - 4) / 4;
  for (const c of [2, 4, 8, 12]) {
    const [ttft] = at(c);
    // A busy machine sends tokens late, which holds slots longer: the waits may grow by a fraction, never shrink.
    assert.ok(
      ttft >= expected(c) - 5 && ttft <= expected(c) * 1.25 + 10,
      `TTFT p50 at concurrency ${c}: ${ttft} ms, the model says ${expected(c)}`,
    );
  }
  // Past the knee the throughput is the capacity, 4 / S = 33.3 requests/s (a little less when tokens leave late).
  const [, rps8] = at(8);
  const [, rps12] = at(12);
  for (const rps of [rps8, rps12]) assert.ok(rps < 4000 / service + 2 && rps > 0.7 * 4000 / service, `${rps} req/s`);
  // The same cap at both (a busy machine lowers either by sending tokens late, never raises one past it).
  assert.ok(Math.abs(rps12 - rps8) / rps8 < 0.35, `throughput ${rps8} at 8 and ${rps12} at 12 clients: the same cap`);
  const metrics = await (await fetch(`${sim.url}/metrics`)).text();
  const queued = Number(/^vllm:request_queue_time_seconds_sum\{[^}]*\} (\S+)$/m.exec(metrics)?.[1]);
  // 48 requests at 8 wait 120 ms each after the first round (≈ 4.8 s), 48 at 12 wait 240 ms (≈ 10.6 s).
  assert.ok(queued > 10 && queued < 40, `queue time sum ${queued} s`);
});
