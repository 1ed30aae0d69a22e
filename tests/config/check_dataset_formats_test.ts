import assert from "node:assert/strict";
import { ConfigError } from "../../src/config/config_error.ts";
import { parseProfileArgs } from "../../src/config/parse_profile_args.ts";
import { loadDataset } from "../../src/dataset/load_dataset.ts";
import { SeededRandom } from "../../src/base/seeded_random.ts";
import { loadBuiltinTokenizer } from "../../src/tokenizer/builtin_tokenizer.ts";
import { fakeIo } from "./_fake_io.ts";

async function outcome(args: readonly string[]) {
  try {
    const parsed = await parseProfileArgs(["-m", "m", ...args], fakeIo());
    return { problems: [] as readonly string[], warnings: parsed.warnings };
  } catch (error) {
    if (error instanceof ConfigError) return { problems: error.problems, warnings: [] as readonly string[] };
    throw error;
  }
}

Deno.test("a format's own option is refused with another format, and has no effect without a file", async () => {
  const other = await outcome([
    "--input-file",
    "x.jsonl",
    "--custom-dataset-type",
    "single_turn",
    "--isl-block-size",
    "8",
  ]);
  assert.deepEqual(other.problems, [
    "--isl-block-size applies to the mooncake_trace, bailian_trace, burst_gpt_trace, tracelab formats, but " +
    "--custom-dataset-type is 'single_turn'; remove one of them.",
  ]);
  const synthetic = await outcome(["--isl-block-size", "8"]);
  assert.deepEqual(synthetic.problems, []);
  assert.ok(
    synthetic.warnings.includes(
      "--isl-block-size has no effect: it applies to an --input-file of the mooncake_trace, bailian_trace, " +
        "burst_gpt_trace, tracelab formats.",
    ),
    synthetic.warnings.join("\n"),
  );
  const own = await outcome([
    "--input-file",
    "x.jsonl",
    "--custom-dataset-type",
    "bailian_trace",
    "--isl-block-size",
    "8",
  ]);
  assert.deepEqual(own, { problems: [], warnings: [] });
});

Deno.test("a format reads its own option from the run's values and describes what it read", async () => {
  const tokenizer = await loadBuiltinTokenizer();
  const load = (blockSize?: number) =>
    loadDataset({
      inputFile: "datasets/examples/mooncake_trace.jsonl",
      rng: new SeededRandom(1),
      tokenizer,
      loaderOptions: blockSize === undefined ? {} : { islBlockSize: blockSize },
    });
  const standard = await load();
  const small = await load(4);
  assert.match(standard.description ?? "", /^mooncake_trace: \d+ requests? in \d+ sessions?/);
  const text = (d: typeof standard) => JSON.stringify(d.conversations.map((c) => c.turns.map((t) => t.texts)));
  assert.notEqual(text(standard), text(small), "the block size shapes the synthesized prompts");
});
