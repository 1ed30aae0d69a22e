import { fuzzYamlConfig } from "./yaml_fuzz_cases.ts";

// Seeded and bounded: the same cases every run (a failure names its seed, case and text). Longer runs with fresh
// seeds: scripts/fuzz/input_fuzz.ts.
Deno.test("fuzz: the YAML config reader yields a config or clear, located problems, never a crash or a hang", async () => {
  for (const seed of [1, 2, 3, 4]) await fuzzYamlConfig(seed, 200);
});
