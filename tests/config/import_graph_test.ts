/**
 * `profile` must send its first request within 150 ms of process start, so the argument parser must not load
 * heavy npm packages: commander (~25–30 ms: CommonJS, pulls in Deno's Node compatibility layer) is for `--help`
 * only and js-yaml (~7 ms) for `-f/--config` only, both imported dynamically. These tests read the module graph
 * with `deno info --json` and run the lazy YAML loading in fresh processes.
 */
import assert from "node:assert/strict";
import { readCliArgs } from "../../src/config/read_cli_args.ts";
import { mayNameConfigFile } from "../../src/config/lazy_yaml_config.ts";
import { allFlagNames } from "../../src/config/option_table.ts";

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

Deno.test("parse_profile_args.ts loads no npm package (commander, js-yaml) through static imports", async () => {
  const graph = await moduleGraph("src/config/parse_profile_args.ts");
  assert.ok(graph.staticModules.size > 5, "the graph was read");
  const npm = [...graph.staticNpm];
  assert.ok(!npm.some((name) => name.includes("commander")), `commander is imported statically: ${npm}`);
  assert.ok(!npm.some((name) => name.includes("js-yaml")), `js-yaml is imported statically: ${npm}`);
  assert.deepEqual(npm, [], "no npm package on profile's argument-parsing path");
  for (const lazy of ["build_profile_command.ts", "yaml_config.ts"]) {
    assert.ok(![...graph.staticModules].some((s) => s.endsWith(`/src/config/${lazy}`)), `${lazy} is not static`);
    // A literal dynamic import keeps the module in the graph, so `deno compile` and `deno bundle` include it.
    assert.ok([...graph.dynamicTargets].some((s) => s.endsWith(`/src/config/${lazy}`)), `${lazy} is imported lazily`);
  }
});

Deno.test("read_cli_args.ts loads no npm package through static imports", async () => {
  assert.deepEqual([...(await moduleGraph("src/config/read_cli_args.ts")).staticNpm], []);
});

/** Runs `_yaml_preload_probe.ts` in a fresh process and returns its one line of output. */
async function probe(args: readonly string[]): Promise<string> {
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--config", CONFIG, new URL("tests/config/_yaml_preload_probe.ts", ROOT).pathname, ...args],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(result.success, new TextDecoder().decode(result.stderr));
  return new TextDecoder().decode(result.stdout).trim();
}

Deno.test("parseProfileArgs reads -f once the YAML loader is preloaded, and says so when it is not", async () => {
  assert.equal(await probe(["preload"]), '["from-yaml"]');
  assert.match(await probe(["plain", "profile", "-f", "run.yaml"]), /^Error: .*await preloadYamlConfig\(\)/);
});

Deno.test("mayNameConfigFile recognises every way of giving -f/--config", () => {
  for (const argv of [["-f", "x"], ["-fx.yaml"], ["-vf", "x"], ["--config", "x"], ["--config=x"], ["a", "-f"]]) {
    assert.equal(mayNameConfigFile(argv), true, argv.join(" "));
  }
  for (const argv of [[], ["-m", "m", "--url", "x"], ["--configx", "y"], ["--no-config"], ["file.yaml"]]) {
    assert.equal(mayNameConfigFile(argv), false, argv.join(" "));
  }
});

Deno.test("mayNameConfigFile is true whenever the parser reads a config file option", () => {
  const pool = [...allFlagNames(), "-f", "-fx", "-vf", "-fv", "-vvf", "-mf", "-m=f", "--config=x", "--", "x", "-1"];
  let seed = 7;
  const next = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  let withConfig = 0;
  for (let n = 0; n < 5000; n++) {
    const argv = Array.from({ length: 1 + Math.floor(next() * 6) }, () => pool[Math.floor(next() * pool.length)]);
    const reads = readCliArgs(argv).occurrences.some((o) => "key" in o.spec && o.spec.key === "configFile");
    if (!reads) continue;
    withConfig++;
    assert.ok(mayNameConfigFile(argv), `missed: ${argv.join(" ")}`);
  }
  assert.ok(withConfig > 100, `enough samples give a config file (${withConfig})`);
});
