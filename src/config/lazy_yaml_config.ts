/**
 * The `-f/--config` YAML loader, loaded only when needed. `yaml_config.ts` imports js-yaml, which takes ~7 ms to
 * load: `profile` should pay that only when it is given a config file. But `parseProfileArgs` is synchronous and an
 * ES module can only be loaded asynchronously, so the loader must be in memory before `parseProfileArgs` meets `-f`:
 * {@link preloadYamlConfig} loads it; the CLI awaits it before parsing when the arguments may name a config file
 * ({@link mayNameConfigFile}). (`yaml_config.ts` does not register itself: that import would close a cycle.)
 *
 * This module imports only the option table at run time.
 */
import { OPTION_TABLE } from "./option_table.ts";
import type { LoadYamlConfigOptions, YamlConfig } from "./yaml_config.ts";

/** Signature of `loadYamlConfig` in `yaml_config.ts`. */
export type LoadYamlConfig = (text: string, options: LoadYamlConfigOptions) => YamlConfig;

let loader: LoadYamlConfig | undefined;

/** Makes `load` the loader `parseProfileArgs` uses for `-f`. */
export function registerYamlConfigLoader(load: LoadYamlConfig): void {
  loader = load;
}

/** Loads `yaml_config.ts` (and js-yaml) unless it is loaded already. */
export async function preloadYamlConfig(): Promise<void> {
  if (loader === undefined) registerYamlConfigLoader((await import("./yaml_config.ts")).loadYamlConfig);
}

/** The YAML loader, or undefined when {@link preloadYamlConfig} has not run and nothing imported `yaml_config.ts`. */
export function loadedYamlConfigLoader(): LoadYamlConfig | undefined {
  return loader;
}

/**
 * True when the parser could read a config-file option from `argv` (false positives only cost the ~7 ms load):
 * any word that starts with a single `-` and contains the config option's short letter (`-f`, `-fx.yaml`, `-vf`),
 * or a long spelling of the config option, with or without `=value`.
 */
export function mayNameConfigFile(argv: readonly string[]): boolean {
  const configSpec = OPTION_TABLE.find((spec) => "key" in spec && spec.key === "configFile");
  if (configSpec === undefined) return false;
  const shortLetter = configSpec.short?.length === 2 ? configSpec.short[1] : undefined;
  for (const arg of argv) {
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      if (configSpec.flags.includes(eq < 0 ? arg : arg.slice(0, eq))) return true;
    } else if (arg.startsWith("-") && shortLetter !== undefined && arg.includes(shortLetter, 1)) {
      return true;
    }
  }
  return false;
}
