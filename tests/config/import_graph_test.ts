/**
 * `profile` must send its first request soon after process start (the target: 120 ms for the bundle), so what it
 * loads before that must stay small: no npm argument parser (~25–30 ms: CommonJS, pulls in Deno's Node compatibility
 * layer), js-yaml (~7 ms) imported dynamically for `-f/--config` only, and charts, reports, kube and the other
 * commands loaded on use. These tests read the module graph with `deno info --json`.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);
const CONFIG = new URL("deno.json", ROOT).pathname;

interface InfoDependency {
  readonly code?: { readonly specifier: string };
  readonly isDynamic?: boolean;
}
interface InfoModule {
  readonly specifier: string;
  readonly kind?: string;
  readonly npmPackage?: string;
  readonly dependencies?: readonly InfoDependency[];
}
interface ModuleGraph {
  /** Modules reached by static imports from the root (code, not type-only imports). */
  readonly staticModules: ReadonlySet<string>;
  /** npm packages reached by static imports. */
  readonly staticNpm: ReadonlySet<string>;
  /** Targets of dynamic imports anywhere in the graph. */
  readonly dynamicTargets: ReadonlySet<string>;
}

async function moduleGraph(path: string): Promise<ModuleGraph> {
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--config", CONFIG, new URL(path, ROOT).pathname],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(result.success, new TextDecoder().decode(result.stderr));
  const info = JSON.parse(new TextDecoder().decode(result.stdout)) as {
    roots: string[];
    modules: InfoModule[];
    redirects: Record<string, string>;
  };
  const modules = new Map(info.modules.map((module) => [module.specifier, module]));
  const resolve = (specifier: string): string => info.redirects[specifier] ?? specifier;
  const staticModules = new Set<string>();
  const staticNpm = new Set<string>();
  const dynamicTargets = new Set<string>();
  for (const module of info.modules) {
    for (const dep of module.dependencies ?? []) if (dep.isDynamic && dep.code) dynamicTargets.add(dep.code.specifier);
  }
  const stack = [resolve(info.roots[0])];
  while (stack.length > 0) {
    const specifier = resolve(stack.pop()!);
    if (staticModules.has(specifier)) continue;
    staticModules.add(specifier);
    const module = modules.get(specifier);
    if (module === undefined) continue;
    if (module.kind === "npm" || specifier.startsWith("npm:")) {
      staticNpm.add(module.npmPackage ?? specifier);
      continue;
    }
    for (const dep of module.dependencies ?? []) if (dep.code && !dep.isDynamic) stack.push(dep.code.specifier);
  }
  return { staticModules, staticNpm, dynamicTargets };
}

Deno.test("parse_profile_args.ts loads no npm package (js-yaml included) through static imports", async () => {
  const graph = await moduleGraph("src/config/parse_profile_args.ts");
  assert.ok(graph.staticModules.size > 5, "the graph was read");
  const npm = [...graph.staticNpm];
  assert.ok(!npm.some((name) => name.includes("js-yaml")), `js-yaml is imported statically: ${npm}`);
  assert.deepEqual(npm, [], "no npm package on profile's argument-parsing path");
  assert.ok(
    [...graph.staticModules].some((s) => s.endsWith("/src/config/render_help.ts")),
    "help is rendered by our own module",
  );
  const lazy = "yaml_config.ts";
  assert.ok(![...graph.staticModules].some((s) => s.endsWith(`/src/config/${lazy}`)), `${lazy} is not static`);
  // A literal dynamic import keeps the module in the graph, so `deno compile` and `deno bundle` include it.
  assert.ok([...graph.dynamicTargets].some((s) => s.endsWith(`/src/config/${lazy}`)), `${lazy} is imported lazily`);
});

Deno.test("the shared parser and every command's option table load no npm package through static imports", async () => {
  for (
    const path of [
      "src/config/read_cli_args.ts",
      "src/config/parse_command_args.ts",
      "src/config/render_help.ts",
      "src/cli/serve_sim_command.ts",
      "src/cli/calibrate_command.ts",
      "src/cli/demo_command.ts",
    ]
  ) {
    assert.deepEqual([...(await moduleGraph(path)).staticNpm], [], path);
  }
});

/** Start-up work a plain `profile` run must not pay for: each module (or folder) below loads on use. */
const LOADED_ON_USE = [
  "/src/kube/", // `kube`
  "/src/sim/", // the simulated server (`serve-sim`, `demo`)
  "/src/report/echarts_", // the chart library's source, embedded as text
  "/src/report/render_chart.ts",
  "/src/report/svg_rasterizer.ts", // resvg's WebAssembly and the font
  "/src/report/run_report.ts", // report.html
  "/src/report/report_html.ts",
  "/src/report/compare_report.ts",
  "/src/report/sweep_report.ts",
  "/src/report/swim_lane.ts",
  "/src/report/server_timing_split.ts",
  "/src/report/peers/peer_metrics.ts",
  "/src/tokenizer/hf_tokenizer.ts",
  "/src/config/yaml_config.ts",
  "/src/run/sweep.ts",
  "/src/run/search/",
  "/src/export/wandb_api.ts",
  "/src/dataset/public_datasets.ts", // --public-dataset's readers
  "/src/dataset/accuracy/benchmarks/", // --accuracy-benchmark's problems and graders (their patterns cost ~50 ms)
  "/src/dataset/accuracy/graders/lighteval_graders.ts",
  "/src/dataset/accuracy/graders/math_grader.ts",
  "/src/dataset/accuracy/load_accuracy_dataset.ts",
] as const;

Deno.test("the profile command's static module graph leaves charts, reports, kube and heavy packages to load on use", async () => {
  const graph = await moduleGraph("src/cli/profile.ts");
  const modules = [...graph.staticModules];
  assert.ok(modules.some((s) => s.endsWith("/src/run/profile_run.ts")), "the graph was read");
  assert.deepEqual([...graph.staticNpm], [], "no npm package is loaded before the first request");
  // Node's built-in modules load Deno's Node compatibility layer (console, errors, streams): node:path alone ~5 ms,
  // node:crypto ~10–25 ms with its streams and ciphers.
  assert.deepEqual(modules.filter((s) => s.startsWith("node:")), [], "no Node built-in module is imported statically");
  for (const heavy of LOADED_ON_USE) {
    assert.deepEqual(modules.filter((s) => s.includes(heavy)), [], `${heavy} is in profile's static graph`);
  }
  // Each stays reachable through a literal dynamic import, so `deno bundle` and `deno compile` include it.
  const lazy = [...graph.dynamicTargets];
  for (
    const onUse of [
      "/src/report/run_report.ts",
      "/ranks/o200k_base", // js-tiktoken: the built-in tokenizer's table
      "/src/run/sweep.ts",
      "/src/config/yaml_config.ts",
      "/src/report/peers/peer_metrics.ts",
      "/src/export/wandb_api.ts",
      "/src/dataset/public_datasets.ts",
      "/src/dataset/accuracy/benchmarks/mmlu.ts",
      "/src/dataset/accuracy/graders/lighteval_graders.ts",
    ]
  ) {
    assert.ok(lazy.some((s) => s.endsWith(onUse)), `${onUse} is imported dynamically`);
  }
});

/** Every `.ts` file under `dir` (relative to the repository root), as `file:` specifiers. */
function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of Deno.readDirSync(new URL(dir, ROOT))) {
    if (entry.isDirectory) out.push(...sourceFiles(`${dir}${entry.name}/`));
    else if (entry.name.endsWith(".ts")) out.push(new URL(`${dir}${entry.name}`, ROOT).href);
  }
  return out;
}

Deno.test("profile's static graph holds the endpoint types' declarations, not their adapters", async () => {
  const graph = await moduleGraph("src/cli/profile.ts");
  assert.ok(graph.staticModules.has(new URL("src/endpoints/endpoint_declarations.ts", ROOT).href), "graph read");
  // Each API's adapter lives in a folder of its vendor (openai/, anthropic/, …) with the helpers only it uses.
  const adapters = [...Deno.readDirSync(new URL("src/endpoints/", ROOT))].filter((e) => e.isDirectory)
    .flatMap((e) => sourceFiles(`src/endpoints/${e.name}/`));
  assert.ok(adapters.length >= 19, `${adapters.length} adapter files`);
  const loaded = adapters.filter((s) => graph.staticModules.has(s));
  assert.deepEqual(loaded, [], "adapters loaded before the run's own type is known");
  // Every registered adapter stays reachable through a literal dynamic import (`deno compile`, the bundler).
  const lazy = [...graph.dynamicTargets];
  for (const file of ["openai/chat.ts", "anthropic/messages.ts", "raw/raw_adapter.ts", "template/template.ts"]) {
    assert.ok(lazy.some((s) => s.endsWith(`/src/endpoints/${file}`)), `${file} is imported dynamically`);
  }
});

Deno.test("profile's static graph holds the dataset formats' declarations, not their readers", async () => {
  const graph = await moduleGraph("src/cli/profile.ts");
  assert.ok(graph.staticModules.has(new URL("src/dataset/dataset_formats.ts", ROOT).href), "graph read");
  // A run with synthetic prompts reads no file: every format's reader (`<format>_loader.ts`) loads on use.
  const readers = sourceFiles("src/dataset/").filter((s) => s.endsWith("_loader.ts"));
  assert.ok(readers.length >= 15, `${readers.length} reader files`);
  const loaded = readers.filter((s) => graph.staticModules.has(s));
  assert.deepEqual(loaded, [], "dataset readers loaded before a dataset file is read");
  const lazy = [...graph.dynamicTargets];
  for (const file of ["single_turn_loader.ts", "mooncake_trace_loader.ts", "weka_trace_loader.ts"]) {
    assert.ok(lazy.some((s) => s.endsWith(`/src/dataset/${file}`)), `${file} is imported dynamically`);
  }
});

Deno.test("the entry module loads only the command table: every command, Workers' roles included, loads on use", async () => {
  const graph = await moduleGraph("main.ts");
  const modules = [...graph.staticModules].filter((s) => s.startsWith("file:"));
  assert.deepEqual([...graph.staticNpm], []);
  assert.ok(modules.length <= 8, `main.ts loads ${modules.length} modules statically: ${modules.join(", ")}`);
  for (const command of ["profile.ts", "kube.ts", "plot.ts", "serve_sim.ts", "worker_main.ts"]) {
    assert.ok(!modules.some((s) => s.endsWith(`/src/cli/${command}`)), `${command} is static`);
    assert.ok([...graph.dynamicTargets].some((s) => s.endsWith(`/src/cli/${command}`)), `${command} is lazy`);
  }
});
