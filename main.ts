/**
 * infermeter: benchmark LLM inference servers. `deno run -A main.ts --help`.
 *
 * Kept import-light on purpose: every command is loaded on demand by main_cli.ts. The same module is the entry
 * of infermeter's Workers (token counting, engine shards), so one bundled file or binary carries everything.
 */
import { runCli } from "./src/cli/main_cli.ts";
import { currentWorkerRole, holdEarlyMessages } from "./src/runtime/spawn_worker.ts";

if (currentWorkerRole() !== undefined) {
  // Before any await: messages arriving while the role module loads must not be lost.
  const early = holdEarlyMessages();
  await (await import("./src/cli/worker_main.ts")).startWorker();
  early.release();
} else if (import.meta.main) {
  Deno.exit(await runCli(Deno.args));
}
