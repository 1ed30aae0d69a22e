/**
 * Runs `infermeter calibrate --json` when the command exists (its `--help` exits 0) and keeps its output for the
 * results file; answers undefined when the command is not there yet.
 *
 * Given every core this harness was allowed (`allCores`), not only the client's, and not the one core the harness
 * pinned itself to: `calibrate` pins its reference server and its clients to cores of their own, but only when it
 * may use two. Confined to one, it ran the server on the client's core (the errors of the bare floor client grew
 * with ours: 256-stream TTFT p50 0.59 and 0.40 ms, against ~0.05 with two cores).
 */
import type { JsonValue } from "./bench_types.ts";
import { pinned, quickCommand, tail } from "./child_runner.ts";
import { V8_FLAGS_ARG } from "../../src/runtime/v8_flags.ts";

export async function runCalibrate(
  repoRoot: string,
  allCores: readonly number[] | undefined,
  durationSec?: number,
): Promise<{ [k: string]: JsonValue } | undefined> {
  const base = [Deno.execPath(), "run", "-A", V8_FLAGS_ARG, `${repoRoot}/main.ts`, "calibrate"];
  const help = await quickCommand([...base, "--help"], 30_000, { cwd: repoRoot });
  if (help.code !== 0) return undefined;
  const duration = durationSec === undefined ? [] : ["--duration", String(durationSec)];
  const argv = pinned([...base, ...duration, "--json"], allCores?.join(","));
  console.error(`bench: running ${argv.join(" ")}`);
  const r = await quickCommand(argv, 180_000, { cwd: repoRoot });
  let output: JsonValue;
  try {
    output = JSON.parse(r.stdout) as JsonValue;
  } catch {
    output = r.stdout;
  }
  return { command: argv, exit_code: r.code, output, stderr_tail: tail(r.stderr, 10) };
}
