/**
 * `infermeter demo` (`deno task demo`): a real benchmark against the built-in simulated server, with no GPU
 * and no network. Starts `serve-sim` as a child process on a free loopback port, runs `profile` against it
 * like a user would (streaming chat, 100-token prompts, 64-token answers, concurrency 4), prints the table,
 * writes the artifacts under ./artifacts, and stops the server.
 */
import { ConfigError } from "../config/config_error.ts";
import { isHelpRequest, readCliArgs } from "../config/read_cli_args.ts";
import { renderHelp } from "../config/render_help.ts";
import { DEMO_COMMAND, demoProfileArgs } from "./demo_command.ts";
import { EXIT } from "./exit_codes.ts";
import { selfCommand } from "../runtime/self_command.ts";

const SIM_ARGS = ["--port", "0", "--ttft", "40", "--itl", "4", "--seed", "1"];

export async function runDemo(args: string[]): Promise<number> {
  if (isHelpRequest(args)) {
    console.log(renderHelp(DEMO_COMMAND));
    return EXIT.OK;
  }
  // Misspelled or stray options fail before the server starts; values are checked by profile, as for any run.
  const { problems } = readCliArgs(args, DEMO_COMMAND);
  if (problems.length > 0) {
    console.error(`error: ${new ConfigError(problems).message}`);
    return EXIT.USAGE;
  }
  const sim = new Deno.Command(selfCommand.execPath, {
    args: [...selfCommand.args, "serve-sim", ...SIM_ARGS],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  // Whatever ends this process, the server goes: a first Ctrl-C or SIGTERM stops the profile run gracefully
  // (and then `finally` below), a second one exits at once (and `unload` runs).
  const stopSim = () => {
    try {
      sim.kill("SIGTERM");
    } catch {
      // Already gone.
    }
  };
  globalThis.addEventListener("unload", stopSim);
  const stop = new AbortController();
  const onSignal = () => {
    if (stop.signal.aborted) Deno.exit(EXIT.INTERRUPTED);
    stop.abort();
  };
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  for (const s of signals) Deno.addSignalListener(s, onSignal);
  try {
    const url = await readListeningUrl(sim.stdout);
    console.error(`Simulated server (TTFT 40 ms, ITL 4 ms) listening on ${url}`);
    const { runProfile } = await import("./profile.ts");
    if (stop.signal.aborted) return EXIT.INTERRUPTED;
    return await runProfile([...demoProfileArgs(url), ...args], { signal: stop.signal });
  } finally {
    for (const s of signals) Deno.removeSignalListener(s, onSignal);
    globalThis.removeEventListener("unload", stopSim);
    stopSim();
    await sim.status;
  }
}

/** Reads the sim's stdout until its `serve-sim listening on <url>` line (then keeps draining it). */
async function readListeningUrl(stdout: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  const deadline = setTimeout(() => reader.cancel("timeout"), 15_000);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
      const m = /serve-sim listening on (\S+)/.exec(text);
      if (m) {
        // Keep draining so the child never blocks on a full pipe.
        (async () => {
          try {
            while (!(await reader.read()).done) { /* discard */ }
          } catch { /* closed */ }
        })();
        return m[1];
      }
    }
  } finally {
    clearTimeout(deadline);
  }
  throw new Error(`the simulated server did not start (its output: ${text.trim() || "nothing"})`);
}
