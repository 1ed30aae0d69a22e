/**
 * `profile` must send its first request within 150 ms of process start, so the argument parser must not load
 * heavy npm packages statically: an npm argument parser (~25–30 ms: CommonJS, pulls in Deno's Node compatibility
 * layer) is not used at all, and js-yaml (~7 ms) is imported dynamically, for `-f/--config` only. These tests read
 * the module graph with `deno info --json`.
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
