/**
 * Does `--search-recipe max-concurrency-under-sla` find a server's capacity? Against `serve-sim --slots N` (N requests
 * generate at once, the rest wait in a FIFO queue: TTFT is flat up to N clients and jumps by a whole service time
 * past it), one search per seed; the found maximum must be within one step (±1) of N.
 *
 *   deno run -A scripts/search/knee_check.ts [--slots 16] [--ttft 20] [--itl 10] [--osl 12] [--sla 80]
 *       [--seeds 1,2,3] [--style smooth_isotonic|monotonic|grid] [--requests 160] [--keep]
 *
 * Prints one Markdown row per seed (found, first failing, probes, runs, wall time) and exits 1 when a seed misses.
 * Loopback only; each search writes into a temporary directory (kept with --keep).
 */
import { fileURLToPath } from "node:url";
import { type SimServer, startServerProcess } from "../bench/sim_launcher.ts";

const MAIN = fileURLToPath(new URL("../../main.ts", import.meta.url));

function option(name: string, fallback: string): string {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 && i + 1 < Deno.args.length ? Deno.args[i + 1] : fallback;
}

const slots = Number(option("slots", "16"));
const ttft = Number(option("ttft", "20"));
const itl = Number(option("itl", "10"));
const osl = Number(option("osl", "12"));
const sla = Number(option("sla", "80"));
const seeds = option("seeds", "1,2,3").split(",").map(Number);
const style = option("style", "smooth_isotonic");
const requests = option("requests", "160");
const keep = Deno.args.includes("--keep");

function startSim(seed: number): Promise<SimServer> {
  const argv = [
    Deno.execPath(),
    "run",
    "-A",
    MAIN,
    "serve-sim",
    "--port",
    "0",
    "--slots",
    String(slots),
    "--ttft",
    String(ttft),
    "--itl",
    String(itl),
    "--seed",
    String(seed),
  ];
  return startServerProcess({ label: "serve-sim", argv, listening: /listening on (http:\/\/127\.0\.0\.1:\d+)/ });
}

const service = ttft + itl * (osl - 1);
console.log(
  `serve-sim --slots ${slots} --ttft ${ttft} --itl ${itl}, ${osl} output tokens: service time ${service} ms, knee ` +
    `at concurrency ${slots}; SLA p95 TTFT < ${sla} ms (a queued request's TTFT ≈ ${ttft + service} ms); ` +
    `--search-style ${style}, ${requests} requests per probe\n`,
);
console.log("| seed | found | first failing | within one step | probes | runs | wall |");
console.log("| ---- | ----- | ------------- | --------------- | ------ | ---- | ---- |");
const work = await Deno.makeTempDir({ prefix: "knee_check_" });
let misses = 0;
for (const seed of seeds) {
  const sim = await startSim(seed);
  const dir = `${work}/seed_${seed}`;
  const t0 = performance.now();
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      MAIN,
      "profile",
      "--url",
      sim.url,
      "-m",
      "sim-model",
      "--endpoint-type",
      "chat",
      "--streaming",
      "--synthetic-input-tokens-mean",
      "32",
      "--output-tokens-mean",
      String(osl),
      "--extra-inputs",
      "ignore_eos:true",
      "--request-count",
      requests,
      "--warmup-request-count",
      String(slots),
      "--random-seed",
      String(seed),
      "--ui-type",
      "none",
      "--search-recipe",
      "max-concurrency-under-sla",
      "--ttft-sla-ms",
      String(sla),
      "--search-style",
      style,
      "--concurrency-min",
      "4",
      "--concurrency-max",
      String(slots * 8),
      "--artifact-dir",
      dir,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const wall = (performance.now() - t0) / 1000;
  await sim.stop();
  if (!out.success) {
    console.log(`| ${seed} | failed (exit ${out.code}) | | no | | | ${wall.toFixed(0)} s |`);
    console.error(new TextDecoder().decode(out.stderr).slice(-2000));
    misses++;
    continue;
  }
  const answer = JSON.parse(await Deno.readTextFile(`${dir}/search_answer.json`));
  const found: number | undefined = answer.highest_within_slo?.concurrency;
  const failing: number | undefined = answer.first_failing?.concurrency;
  const ok = found !== undefined && Math.abs(found - slots) <= 1;
  if (!ok) misses++;
  const runs = answer.probes.reduce((n: number, p: { runs: number }) => n + p.runs, 0);
  console.log(
    `| ${seed} | ${found ?? "none"} | ${failing ?? "none"} | ${
      ok ? "yes" : "NO"
    } | ${answer.probes.length} | ${runs} | ` +
      `${wall.toFixed(0)} s |`,
  );
  console.log(`|  | ${answer.answer} ||||||`);
}
if (keep) console.log(`\nresults kept in ${work}`);
else await Deno.remove(work, { recursive: true });
Deno.exit(misses === 0 ? 0 : 1);
