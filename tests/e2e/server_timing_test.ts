/**
 * The server's own timing split as a user gets it: serve-sim reporting llama.cpp-style timings (streamed) and
 * TGI-style headers (non-streamed); the records carry them, and the run prints and writes the split.
 */
import assert from "node:assert/strict";
import { assertExit, readJson, readJsonl, runCli, startSim, tempDir } from "./cli_harness.ts";

const COMMON = [
  "--model",
  "m",
  "--request-count",
  "8",
  "--concurrency",
  "2",
  "--synthetic-input-tokens-mean",
  "30",
  "--output-tokens-mean",
  "12",
  "--extra-inputs",
  "ignore_eos:true",
  "--ui",
  "none",
];

interface Row {
  part: string;
  count: number;
  avg: number;
  p50: number;
}

Deno.test("a llama.cpp-style server's timings split the client's TTFT into prefill and network + client", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "40", "--itl", "8", "--server-timing", "llama.cpp"]);
  const run = await runCli(
    [
      "profile",
      "--url",
      sim.url,
      "--endpoint-type",
      "chat",
      "--streaming",
      "--artifact-dir",
      `${tmp.path}/run`,
      ...COMMON,
    ],
    { cwd: tmp.path, timeoutMs: 60_000 },
  );
  assertExit(run, 0);
  assert.match(run.stdout, /Server timing split \(llama\.cpp: 8 of 8 requests/);
  const lines = await readJsonl(`${tmp.path}/run/profile_export.jsonl`);
  const timing = lines[0].record.metadata.server_timing as Record<string, number | string>;
  assert.equal(timing.source, "llama.cpp");
  assert.equal(timing.decode_tokens, 12);
  assert.ok(Number(timing.prefill_ms) >= 39, `the sim's measured prefill covers its 40 ms TTFT: ${timing.prefill_ms}`);
  const split = await readJson<{ ttft: Row[]; decode: Row[] }>(`${tmp.path}/run/server_timing_split.json`);
  const prefill = split.ttft.find((r) => r.part === "Server prefill")!;
  const rest = split.ttft.find((r) => r.part === "Network + client")!;
  const client = split.ttft.find((r) => r.part === "Client TTFT")!;
  assert.equal(prefill.count, 8);
  assert.ok(Math.abs(client.avg - prefill.avg - rest.avg) < 1e-6, "the parts add up to the client's TTFT");
  assert.ok(rest.p50 >= 0 && rest.p50 < 20, `loopback network + client is small: ${rest.p50}`);
  // `peers` on the finished run gives the same split from its records.
  await Deno.remove(`${tmp.path}/run/server_timing_split.json`);
  const peers = await runCli(["peers", `${tmp.path}/run`, "--peer-metrics", "vllm"], {
    cwd: tmp.path,
    timeoutMs: 30_000,
  });
  assertExit(peers, 0);
  assert.match(peers.stdout, /Server timing split \(llama\.cpp: 8 of 8/);
  assert.deepEqual(await readJson(`${tmp.path}/run/server_timing_split.json`), split);
  const decode = split.decode.find((r) => r.part === "Server decode")!;
  assert.ok(decode.avg > 11 * 8 * 0.9, `11 gaps of 8 ms: ${decode.avg}`);
});

Deno.test("TGI-style headers on non-streamed answers give queue, inference and total beside the client's latency", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "20", "--itl", "2", "--server-timing", "tgi"]);
  const run = await runCli(
    ["profile", "--url", sim.url, "--endpoint-type", "chat", "--artifact-dir", `${tmp.path}/run`, ...COMMON],
    { cwd: tmp.path, timeoutMs: 60_000 },
  );
  assertExit(run, 0);
  const split = await readJson<{ sources: string[]; whole_request: Row[] }>(`${tmp.path}/run/server_timing_split.json`);
  assert.deepEqual(split.sources, ["tgi"]);
  const total = split.whole_request.find((r) => r.part === "Server total")!;
  const rest = split.whole_request.find((r) => r.part === "Network + client")!;
  assert.equal(total.count, 8);
  assert.ok(total.avg >= 40, `20 ms TTFT + 11 · 2 ms: ${total.avg}`);
  // Loopback and the client add a few ms; a busy machine a few tens, never the server's own hundreds.
  assert.ok(rest.p50 > -1.5 && rest.p50 < 60, `whole-ms headers, loopback: ${rest.p50}`);
});

Deno.test("a server without timings adds nothing to the run's files", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--fast"]);
  const run = await runCli(
    [
      "profile",
      "--url",
      sim.url,
      "--endpoint-type",
      "chat",
      "--streaming",
      "--artifact-dir",
      `${tmp.path}/run`,
      ...COMMON,
    ],
    { cwd: tmp.path, timeoutMs: 60_000 },
  );
  assertExit(run, 0);
  assert.doesNotMatch(run.stdout, /Server timing split/);
  const names = [...Deno.readDirSync(`${tmp.path}/run`)].map((e) => e.name);
  assert.ok(!names.includes("server_timing_split.json"));
});
