/**
 * Run by `import_graph_test.ts` in a fresh process: `deno run probe.ts <mode> [process args…]`. Parses
 * `-f run.yaml` (which sets the model) and prints the models, or the error's class and message. Mode `preload`
 * awaits `preloadYamlConfig()` first; mode `plain` does not (and must get the error naming the fix).
 */
import { parseProfileArgs, preloadYamlConfig } from "../../src/config/parse_profile_args.ts";
import { fakeIo } from "./_fake_io.ts";

if (Deno.args[0] === "preload") await preloadYamlConfig();
try {
  const { config } = parseProfileArgs(["-f", "run.yaml"], fakeIo({ files: { "run.yaml": "model: from-yaml\n" } }));
  console.log(JSON.stringify(config.modelNames));
} catch (error) {
  console.log(`${(error as Error).constructor.name}: ${(error as Error).message}`);
}
