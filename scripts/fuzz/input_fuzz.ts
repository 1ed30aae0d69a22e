/**
 * Longer fuzzing of the user's input files than the suite's (tests/dataset/fuzz_test.ts, tests/config/
 * yaml_fuzz_test.ts): the dataset loaders through loadDataset and the YAML config reader through parseProfileArgs,
 * with fresh seeds for `--seconds`. A failure prints its seed, case and input; re-run with `--seed N`.
 *
 *   deno run -A scripts/fuzz/input_fuzz.ts [--seconds 60] [--seed N] [--max-len 16384]
 */
import { datasetFuzzContext, fuzzDatasetLoaders } from "../../tests/dataset/fuzz_cases.ts";
import { fuzzYamlConfig } from "../../tests/config/yaml_fuzz_cases.ts";

function arg(name: string, fallback: string): string {
  const at = Deno.args.indexOf(`--${name}`);
  return at >= 0 && at + 1 < Deno.args.length ? Deno.args[at + 1] : fallback;
}

const seconds = Number(arg("seconds", "60"));
const maxLen = Number(arg("max-len", "16384"));
const fixed = Deno.args.includes("--seed") ? Number(arg("seed", "0")) : undefined;
const until = performance.now() + seconds * 1000;
let seed = fixed ?? (Date.now() % 1_000_000) * 1000;
const dir = await Deno.makeTempDir({ prefix: "infermeter_fuzz_" });
let files = 0;
let configs = 0;
try {
  const ctx = await datasetFuzzContext(dir);
  do {
    await fuzzDatasetLoaders(ctx, seed, 100, maxLen);
    await fuzzYamlConfig(seed, 200, maxLen);
    files += 100;
    configs += 200;
    seed++;
  } while (fixed === undefined && performance.now() < until);
} finally {
  await Deno.remove(dir, { recursive: true });
}
console.log(
  `ok: ${files} dataset files and ${configs} config files, seeds up to ${seed - 1}, inputs up to ${maxLen} bytes`,
);
