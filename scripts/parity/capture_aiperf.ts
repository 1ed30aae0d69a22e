/**
 * Captures what AIPerf 0.13 writes against this checkout's `serve-sim` with usage reporting on, for the parity
 * tests: every scenario of `harness.ts`, AIPerf's export files copied as written into
 * `tests/fixtures/aiperf_0_13/<scenario>/`, with what the terminal showed (`console_stdout.txt`), what the
 * simulator itself reported after the run (`server_metrics.txt`, its `/metrics`) and the commands (`command.txt`).
 * Local paths and the port are replaced by `<run>`, `<repo>` and `<port>`; nothing else is edited.
 *
 *   deno run -A scripts/parity/capture_aiperf.ts [--aiperf /path/to/aiperf] [--only NAME]
 */
import { join } from "node:path";
import { aiperfBin, ROOT, runScenario, SCENARIOS } from "./harness.ts";

const AIPERF = aiperfBin(Deno.args);
const only = Deno.args.includes("--only") ? Deno.args[Deno.args.indexOf("--only") + 1] : undefined;
const OUT = join(ROOT, "tests/fixtures/aiperf_0_13");
/** The files of an artifact directory worth keeping (the raw export and logs are not). */
const KEEP =
  /^(profile_export(_aiperf)?\.(csv|json|jsonl)|profile_export_aiperf_timeslices\.(csv|json)|profile_export_console\.txt|server_metrics_export\.(csv|json)|inputs\.json)$/;

const version = await new Deno.Command(AIPERF, { args: ["--version"], stdout: "piped", stderr: "piped" }).output();
console.error(`AIPerf: ${new TextDecoder().decode(version.stdout).trim()}`);

const work = await Deno.makeTempDir({ prefix: "aiperf-capture-" });
try {
  for (const scenario of SCENARIOS) {
    if (only !== undefined && scenario.name !== only) continue;
    console.error(`${scenario.name}: ${scenario.about}`);
    const r = await runScenario(scenario, "aiperf", work, AIPERF);
    const scrub = (text: string) =>
      text.replaceAll(r.dir, "<run>").replaceAll(ROOT.replace(/\/$/, ""), "<repo>").replace(
        /127\.0\.0\.1:\d+/g,
        "127.0.0.1:<port>",
      );
    const dest = join(OUT, scenario.name);
    await Deno.remove(dest, { recursive: true }).catch(() => {});
    await Deno.mkdir(dest, { recursive: true });
    for (const entry of Deno.readDirSync(r.artifacts)) {
      if (!entry.isFile || !KEEP.test(entry.name)) continue;
      await Deno.writeTextFile(join(dest, entry.name), scrub(await Deno.readTextFile(join(r.artifacts, entry.name))));
    }
    await Deno.writeTextFile(join(dest, "console_stdout.txt"), scrub(r.run.stdout));
    await Deno.writeTextFile(join(dest, "server_metrics.txt"), scrub(r.serverMetrics));
    await Deno.writeTextFile(
      join(dest, "command.txt"),
      scrub(
        `aiperf profile ${scenario.args.join(" ")} --url <sim>\n` +
          `serve-sim --port 0 --tokenizer tests/fixtures/tiny_bpe --usage-details ${scenario.sim.join(" ")}\n`,
      ),
    );
    console.error(`  → ${dest}`);
  }
} finally {
  await Deno.remove(work, { recursive: true });
}
