import { datasetFuzzContext, fuzzDatasetLoaders } from "./fuzz_cases.ts";

// Seeded and bounded: the same cases every run (a failure names its seed, case and file). Longer runs with fresh
// seeds: scripts/fuzz/input_fuzz.ts.
Deno.test("fuzz: every dataset loader yields a dataset or a located InputError, never a crash or a hang", async () => {
  const dir = await Deno.makeTempDir({ prefix: "infermeter_fuzz_" });
  try {
    const ctx = await datasetFuzzContext(dir);
    for (const seed of [1, 2, 3]) await fuzzDatasetLoaders(ctx, seed, 150);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
