/**
 * How exactly does `infermeter replay` keep a bundle's schedule? An open-loop multi-turn run with `--bundle` against
 * one serve-sim, then `replay --bundle` of it against a second; per request, the replay's send time from its
 * schedule's origin against the original's due time (both read from the two bundles' requests.jsonl). The original
 * run's own lateness (send − due) is the reference measured in the same session: a replay is as exact as the
 * open-loop engine it runs on.
 *
 *   deno run -A scripts/bundle/replay_offsets.ts [--rate 50] [--requests 600] [--turns 3] [--delay 200]
 *       [--scale 1] [--runs 3] [--keep]
 *
 * Prints one Markdown row per run (p50, p90, p99, max of |replay send − original due| and of the original's own
 * lateness; whether every body and the schedule were identical) and exits 1 when a body or a due time differs.
 * Loopback only; everything is written into a temporary directory (kept with --keep).
 */
import { fileURLToPath } from "node:url";
import { type BundleRequest, readRunBundle } from "../../src/dataset/run_bundle.ts";
import { type SimServer, startServerProcess } from "../bench/sim_launcher.ts";

const MAIN = fileURLToPath(new URL("../../main.ts", import.meta.url));
const LISTENING = /listening on (http:\/\/127\.0\.0\.1:\d+)/;
const V8 = "--v8-flags=--min-semi-space-size=16,--max-semi-space-size=16,--initial-old-space-size=128";

function option(name: string, fallback: string): string {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 && i + 1 < Deno.args.length ? Deno.args[i + 1] : fallback;
}

const rate = option("rate", "50");
const requests = option("requests", "600");
const turns = option("turns", "3");
const delay = option("delay", "200");
const scale = Number(option("scale", "1"));
const runs = Number(option("runs", "3"));
const keep = Deno.args.includes("--keep");

function startSim(): Promise<SimServer> {
  const argv = [Deno.execPath(), "run", "-A", MAIN, "serve-sim", "--port", "0", "--ttft", "10", "--itl", "2"];
  return startServerProcess({ label: "serve-sim", argv, listening: LISTENING });
}

async function cli(args: string[], cwd: string): Promise<void> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", V8, MAIN, ...args, "--ui", "none"],
    cwd,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`infermeter ${args[0]} failed:\n${new TextDecoder().decode(out.stderr)}`);
}

/** Requests by session, each in turn order, sessions in order of their first due time. */
function paired(list: readonly BundleRequest[]): BundleRequest[] {
  const by = new Map<number, BundleRequest[]>();
  for (const r of list) by.set(r.session, [...(by.get(r.session) ?? []), r]);
  return [...by.values()]
    .map((t) => t.sort((a, b) => a.turn - b.turn))
    .sort((a, b) => a[0].scheduled_offset_ms! - b[0].scheduled_offset_ms! || a[0].request_index - b[0].request_index)
    .flat();
}

function stats(values: number[]): string {
  const s = [...values].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))];
  return [q(0.5), q(0.9), q(0.99), s[s.length - 1]].map((v) => v.toFixed(3)).join(" | ");
}

console.log(
  `open loop ${rate} req/s, ${requests} requests in sessions of ${turns} turns (think time ${delay} ms), ` +
    `replayed at --time-scale ${scale}; serve-sim --ttft 10 --itl 2; ${navigator.hardwareConcurrency} CPUs\n`,
);
console.log(
  "| run | replay p50 | p90 | p99 | max (ms) | original lateness p50 | p90 | p99 | max (ms) | bodies and schedule |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
const work = await Deno.makeTempDir({ prefix: "replay_offsets_" });
let failures = 0;
for (let run = 1; run <= runs; run++) {
  const dir = `${work}/run_${run}`;
  await Deno.mkdir(dir);
  const first = await startSim();
  const second = await startSim();
  try {
    // deno-fmt-ignore
    await cli([
      "profile", "--url", first.url, "--model", "m", "--streaming", "--request-rate", rate, "--request-count",
      requests, "--conversation-turn-mean", turns, "--conversation-turn-delay-mean", delay, "--isl", "64", "--osl",
      "16", "--random-seed", String(run), "--artifact-dir", "orig", "--bundle",
    ], dir);
    // deno-fmt-ignore
    await cli([
      "replay", "orig/run.bundle.tar.gz", "--url", second.url, "--time-scale", String(scale), "--artifact-dir", "rep",
      "--bundle",
    ], dir);
  } finally {
    await first.stop();
    await second.stop();
  }
  const original = paired((await readRunBundle(`${dir}/orig/run.bundle.tar.gz`)).requests);
  const replay = paired((await readRunBundle(`${dir}/rep/run.bundle.tar.gz`)).requests);
  const same = original.length === replay.length &&
    original.every((o, i) =>
      o.body === replay[i].body && Math.abs(replay[i].scheduled_offset_ms! - o.scheduled_offset_ms! * scale) < 1e-6
    );
  if (!same) failures++;
  const error = replay.map((r, i) => Math.abs(r.start_offset_ms - original[i].scheduled_offset_ms! * scale));
  const lateness = original.map((o) => o.start_offset_ms - o.scheduled_offset_ms!);
  console.log(`| ${run} | ${stats(error)} | ${stats(lateness)} | ${same ? "identical" : "DIFFER"} |`);
}
if (keep) console.log(`\nkept: ${work}`);
else await Deno.remove(work, { recursive: true });
Deno.exit(failures === 0 ? 0 : 1);
