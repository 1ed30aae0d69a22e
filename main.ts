/**
 * infermeter: benchmark LLM inference servers. `deno run -A main.ts --help`.
 *
 * Kept import-light on purpose: every command is loaded on demand by main_cli.ts.
 */
import { runCli } from "./src/cli/main_cli.ts";

if (import.meta.main) {
  Deno.exit(await runCli(Deno.args));
}
