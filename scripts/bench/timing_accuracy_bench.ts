/**
 * Timing accuracy against the simulator's known schedule (TTFT 60 ms, then one token every 4 ms): TTFT, ITL and
 * request latency must read within 5 % of it. The sim's stack and loopback add ~0.5 ms, so TTFT reads
 * ~60.5–61 ms on an idle machine.
 *
 * A benchmark, not a test: the bounds cannot hold on a machine whose cores are all busy (the sim's precise
 * timer polls for the last 2.5 ms of every wait, so the kernel preempts it and its tokens really leave 3–10 ms
 * late — the client measures that correctly). A try that misses is repeated after a pause; the verdict is
 * PASS, FAIL (a miss while the machine had CPU to spare, per /proc/stat), or INCONCLUSIVE (every try ran on a
 * saturated machine), and the exit status is non-zero only on FAIL.
 *
 *   deno run -A scripts/bench/timing_accuracy_bench.ts
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, metric, readJson, runCli, startSim, tempDir } from "../../tests/e2e/cli_harness.ts";

const TTFT_MS = 60;
const ITL_MS = 4;
const OSL = 20;
const DIR = "artifacts/m-chat-concurrency1";

/** A problem when `actual` is not within `ratio` of `expected`. */
function within(actual: number, expected: number, ratio: number, what: string): string[] {
  return Math.abs(actual - expected) <= expected * ratio
    ? []
    : [`${what} ${actual.toFixed(3)} is not within ${ratio * 100} % of ${expected}`];
}

/** Below this share of idle CPU (all cores) during a try, the sim's timing is not trustworthy. */
const SATURATED_IDLE = 0.25;

/**
 * Runs `attempt` up to `tries` times, pausing between tries, until it reports no timing problem. Transient load
 * passes; a real measurement bias fails every try made with CPU to spare. Functional assertions inside `attempt`
 * fail at once.
 */
async function retryTiming(tries: number, attempt: () => Promise<string[]>): Promise<"PASS" | "FAIL" | "INCONCLUSIVE"> {
  const seen: string[] = [];
  let conclusive = 0;
  for (let i = 1; i <= tries; i++) {
    const meter = idleMeter();
    const problems = await attempt();
    const idle = meter.stop();
    if (problems.length === 0) return "PASS";
    const saturated = idle !== undefined && idle < SATURATED_IDLE;
    if (!saturated) conclusive++;
    const idleText = idle === undefined ? "machine idle share unknown" : `machine ${(idle * 100).toFixed(0)} % idle`;
    seen.push(`try ${i}: ${problems.join("; ")}; ${idleText}${saturated ? " (saturated: inconclusive)" : ""}`);
    if (i < tries) await new Promise((r) => setTimeout(r, 2000));
  }
  const report = `timing off in all ${tries} tries:\n${seen.join("\n")}`;
  console.error(report);
  return conclusive > 0 ? "FAIL" : "INCONCLUSIVE";
}

/** Idle share of all CPUs between creation and `stop()`, from /proc/stat; undefined where that is unreadable. */
function idleMeter(): { stop(): number | undefined } {
  const read = (): [idle: number, total: number] | undefined => {
    try {
      const fields = Deno.readTextFileSync("/proc/stat").split("\n")[0].trim().split(/\s+/).slice(1, 9).map(Number);
      return [fields[3] + fields[4], fields.reduce((a, b) => a + b, 0)];
    } catch {
      return undefined;
    }
  };
  const before = read();
  return {
    stop: () => {
      const after = read();
      if (!before || !after || after[1] <= before[1]) return undefined;
      return (after[0] - before[0]) / (after[1] - before[1]);
    },
  };
}

/** The client's own CPU verdict, to tell a loaded machine from a measurement bug in failure messages. */
function cpuNote(summary: Record<string, unknown>): string {
  const cpu = (summary.infermeter as { client_cpu?: { percent_of_core?: number } } | undefined)?.client_cpu;
  return `client CPU ${cpu?.percent_of_core?.toFixed(0) ?? "?"} % of a core`;
}

/** TTFT, ITL and request latency at concurrency 1 within 5 % of the simulator's schedule. */
async function streamingAccuracy(): Promise<"PASS" | "FAIL" | "INCONCLUSIVE"> {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", String(TTFT_MS), "--itl", String(ITL_MS)]);
  let n = 0;
  return await retryTiming(3, async () => {
    const cwd = join(tmp.path, `try${++n}`);
    await Deno.mkdir(cwd);
    // One warmup request opens the connection and warms the JIT, so the measured requests see steady state.
    // deno-fmt-ignore
    const run = await runCli([
      "profile", "--ui", "none", "-m", "m", "--streaming", "--url", sim.url,
      "--isl", "50", "--osl", String(OSL), "--extra-inputs", "ignore_eos:true",
      "--concurrency", "1", "--request-count", "12", "--warmup-request-count", "1",
    ], { cwd });
    assertExit(run, 0);
    const summary = await readJson(join(cwd, DIR, "profile_export_aiperf.json"));
    assert.equal(metric(summary, "output_sequence_length").avg, OSL);
    // A client cannot see the first token before the server sends it, however loaded the machine is.
    const ttft = metric(summary, "time_to_first_token");
    assert.ok(ttft.min! >= TTFT_MS * 0.99, `TTFT min ${ttft.min} is below the sim's ${TTFT_MS} ms`);
    const problems = [
      ...within(ttft.avg, TTFT_MS, 0.05, "TTFT avg"),
      ...within(metric(summary, "inter_token_latency").avg, ITL_MS, 0.05, "ITL avg"),
      ...within(metric(summary, "request_latency").avg, TTFT_MS + (OSL - 1) * ITL_MS, 0.05, "request latency avg"),
    ];
    return problems.length ? [...problems, cpuNote(summary)] : [];
  });
}

const verdict = await streamingAccuracy();
console.log(`timing accuracy (TTFT ${TTFT_MS} ms, ITL ${ITL_MS} ms, OSL ${OSL}, within 5 %): ${verdict}`);
if (verdict === "FAIL") Deno.exit(1);
