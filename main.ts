/**
 * infermeter: benchmark LLM inference servers. `deno run -A main.ts --help`.
 *
 * Kept import-light on purpose: every command is loaded on demand by main_cli.ts. The same module is the entry
 * of infermeter's Workers (token counting, engine shards, reading large record files), so one bundled file or binary
 * carries everything.
 */
import { runCli } from "./src/cli/main_cli.ts";
import { currentWorkerRole, holdEarlyMessages } from "./src/runtime/spawn_worker.ts";

if (currentWorkerRole() !== undefined) {
  // Before any await: messages arriving while the role module loads must not be lost.
  const early = holdEarlyMessages();
  await (await import("./src/cli/worker_main.ts")).startWorker();
  early.release();
} else if (import.meta.main) {
  // `deno task` runs in the checkout and names the user's directory in INIT_CWD: relative paths (--input-file,
  // artifacts) are the user's. Only then: a process started elsewhere (tests, scripts) keeps its own directory, and
  // so does a bundle run from its own directory (no deno.json beside it) by a process that inherited INIT_CWD.
  const initCwd = Deno.env.get("INIT_CWD");
  if (initCwd && Deno.cwd() === new URL(".", import.meta.url).pathname.replace(/\/$/, "") && inCheckout()) {
    Deno.chdir(initCwd);
  }
  Deno.exit(await runCli(Deno.args));
}

/** Whether this file runs from a checkout (its deno.json beside it), where `deno task` sets INIT_CWD. */
function inCheckout(): boolean {
  try {
    return Deno.statSync(new URL("./deno.json", import.meta.url)).isFile;
  } catch {
    return false;
  }
}
