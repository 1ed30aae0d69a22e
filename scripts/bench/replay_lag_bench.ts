/**
 * How closely a trace replay keeps to its timestamps, seen from the server:
 *
 *   deno run -A scripts/bench/replay_lag_bench.ts [requests=1000] [rate_per_s=100] [seed=7]
 *
 * Writes a mooncake trace of `requests` short prompts with exponential gaps (mean 1000 / rate ms, seeded), replays it
 * with `infermeter profile --input-file … --custom-dataset-type mooncake_trace` against one `serve-sim --fast`
 * recording its request journal, and prints the send lag per request: arrival at the server (journal) minus its due
 * time (the record's `credit_issued_ns`, the trace timestamp on the same wall clock), as p50 / p90 / p99 / max, next
 * to what the run itself reports (`replay_sched_lag_p*`, anchored at the least-late request, as AIPerf does).
 * The target is a p99 under 5 ms on an idle machine. Server and client are pinned to separate cores when there are
 * two or more.
 */
import { join } from "node:path";
import { startSimServer } from "./sim_launcher.ts";
import { pinned } from "./child_runner.ts";
import { readRequestJournal } from "../../src/sim/read_request_journal.ts";
import { SeededRandom } from "../../src/base/seeded_random.ts";
import { percentileSorted } from "../../src/metrics/stats.ts";

const requests = Number(Deno.args[0] ?? 1000);
const rate = Number(Deno.args[1] ?? 100);
const seed = Number(Deno.args[2] ?? 7);
const repoRoot = new URL("../../", import.meta.url).pathname;
const twoCores = navigator.hardwareConcurrency >= 2;

const dir = await Deno.makeTempDir({ prefix: "infermeter_replay_lag_" });
try {
  const rng = new SeededRandom(seed);
  let t = 0;
  const lines: string[] = [];
  for (let i = 0; i < requests; i++) {
    lines.push(JSON.stringify({ timestamp: Math.round(t * 1000) / 1000, text_input: `r${i}`, output_length: 2 }));
    t += -Math.log(1 - rng.next()) * (1000 / rate);
  }
  await Deno.writeTextFile(join(dir, "trace.jsonl"), lines.join("\n") + "\n");
  const journal = join(dir, "journal.jsonl");
  const sim = await startSimServer({
    repoRoot,
    cores: twoCores ? "1" : undefined,
    extraArgs: ["--record-requests", journal],
  });
  let code: number;
  let stderr: string;
  try {
    const argv = pinned([
      Deno.execPath(),
      "run",
      "-A",
      join(repoRoot, "main.ts"),
      "profile",
      "--ui",
      "none",
      "-m",
      "m",
      "--url",
      sim.url,
      "--input-file",
      "trace.jsonl",
      "--custom-dataset-type",
      "mooncake_trace",
      "--artifact-dir",
      "out",
    ], twoCores ? "0" : undefined);
    const out = await new Deno.Command(argv[0], { args: argv.slice(1), cwd: dir, stdout: "null", stderr: "piped" })
      .output();
    code = out.code;
    stderr = new TextDecoder().decode(out.stderr);
  } finally {
    await sim.stop();
  }
  if (code !== 0) throw new Error(`infermeter profile exited ${code}:\n${stderr.slice(-2000)}`);

  const due = new Map<string, number>();
  for (const line of (await Deno.readTextFile(join(dir, "out", "profile_export.jsonl"))).split("\n")) {
    if (line === "") continue;
    const id = /"x_request_id":"([^"]+)"/.exec(line)![1];
    due.set(id, Number(/"credit_issued_ns":(\d+)/.exec(line)![1]) / 1e6);
  }
  const lags = (await readRequestJournal(journal))
    .filter((e) => due.has(e.headers["x-request-id"]))
    .map((e) => e.received_at_ms - due.get(e.headers["x-request-id"])!)
    .sort((a, b) => a - b);
  const summary = JSON.parse(await Deno.readTextFile(join(dir, "out", "profile_export_aiperf.json")));
  const ms = (v: number) => `${v.toFixed(3)} ms`;
  console.log(
    `trace replay: ${lags.length} of ${requests} requests, mean ${rate}/s, seed ${seed}` +
      (twoCores ? " (client on core 0, serve-sim on core 1)" : ""),
  );
  console.log(
    `server-side send lag (arrival − due): min ${ms(lags[0])}, p50 ${ms(percentileSorted(lags, 50))}, ` +
      `p90 ${ms(percentileSorted(lags, 90))}, p99 ${ms(percentileSorted(lags, 99))}, max ${ms(lags.at(-1)!)}`,
  );
  const reported = [50, 90, 99].map((q) => `p${q} ${ms(summary[`replay_sched_lag_p${q}`]?.avg ?? NaN)}`).join(", ");
  console.log(`reported replay_sched_lag (anchored, client-side): ${reported}`);
  const p99 = percentileSorted(lags, 99);
  console.log(`target p99 < 5 ms: ${p99 < 5 ? "met" : "NOT met"} (${ms(p99)})`);
} finally {
  await Deno.remove(dir, { recursive: true });
}
