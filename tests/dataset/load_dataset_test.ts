import assert from "node:assert/strict";
import type { Dataset } from "../../src/dataset/conversation.ts";
import { DatasetError } from "../../src/dataset/dataset_error.ts";
import type { DatasetLoader } from "../../src/dataset/dataset_loader.ts";
import { detectDatasetLoader, loadDataset } from "../../src/dataset/load_dataset.ts";
import { DATASET_LOADERS, datasetLoaders } from "../../src/dataset/dataset_loaders.ts";
import { loadBuiltinTokenizer } from "../../src/tokenizer/builtin_tokenizer.ts";
import { SeededRandom } from "../../src/base/seeded_random.ts";

const tokenizer = await loadBuiltinTokenizer();

async function withFile(lines: readonly string[], body: (path: string) => Promise<void>): Promise<void> {
  const path = await Deno.makeTempFile({ suffix: ".jsonl" });
  try {
    await Deno.writeTextFile(path, lines.join("\n"));
    await body(path);
  } finally {
    await Deno.remove(path);
  }
}

async function assertDatasetError(promise: Promise<unknown>, message: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof DatasetError, String(error));
    assert.equal(error.message, message);
    return true;
  });
}

/** A second format for detection tests: records with an `input_length`. */
const fakeTrace: DatasetLoader = {
  name: "fake_trace",
  description: "a test format",
  canLoad: (record) => typeof record === "object" && record !== null && "input_length" in record,
  load: (): Promise<Dataset> =>
    Promise.resolve({
      conversations: [{ id: "t", turns: [{ texts: ["trace"] }] }],
      defaultSampling: "sequential",
      source: "file",
    }),
};

Deno.test("loadDataset builds the synthetic dataset when no input file is given", async () => {
  const dataset = await loadDataset({ tokenizer, numEntries: 4, islMean: 32, oslMean: 8, seed: 3 });
  assert.equal(dataset.source, "synthetic");
  assert.equal(dataset.conversations.length, 4);
  for (const c of dataset.conversations) {
    assert.equal(c.turns[0].inputTokens, 32);
    assert.equal(c.turns[0].maxTokens, 8);
  }
});

Deno.test("loadDataset needs a tokenizer for synthetic prompts, not for a file", async () => {
  await assert.rejects(loadDataset({}), /loadDataset needs a tokenizer to synthesize prompts; pass options.tokenizer/);
  await withFile(['{"text": "x"}'], async (path) => {
    const dataset = await loadDataset({ inputFile: path });
    assert.equal(dataset.conversations.length, 1);
    assert.equal(dataset.conversations[0].turns[0].inputTokens, undefined, "ISL is counted when requests are prepared");
  });
});

Deno.test("loadDataset detects single_turn files from the first non-empty record", async () => {
  await withFile(["", "  ", '{"text": "hello"}', '{"texts": ["a", "b"]}'], async (path) => {
    const dataset = await loadDataset({ inputFile: path });
    assert.equal(dataset.defaultSampling, "sequential");
    assert.equal(dataset.source, "file");
    assert.deepEqual(dataset.conversations.map((c) => c.turns[0].texts), [["hello"], ["a", "b"]]);
    assert.equal((await detectDatasetLoader(path)).name, "single_turn");
  });
});

Deno.test("loadDataset takes maxTokens of file turns only from output_length", async () => {
  await withFile(['{"text": "a", "output_length": 5}', '{"text": "b"}'], async (path) => {
    const dataset = await loadDataset({ inputFile: path, oslMean: 40, oslStddev: 3 });
    assert.deepEqual(dataset.conversations.map((c) => c.turns[0].maxTokens), [5, undefined]);
  });
});

Deno.test("loadDataset passes the run's root generator to synthesis without advancing it", async () => {
  const rng = new SeededRandom(77);
  const before = new SeededRandom(77).nextUint32();
  const viaRng = await loadDataset({ tokenizer, rng, numEntries: 5, islMean: 40, islStddev: 10, seed: 1 });
  const viaSeed = await loadDataset({ tokenizer, seed: 77, numEntries: 5, islMean: 40, islStddev: 10 });
  assert.deepEqual(viaRng, viaSeed);
  assert.equal(rng.nextUint32(), before);
});

Deno.test("loadDataset uses an explicit custom dataset type and rejects unknown ones", async () => {
  await withFile(['{"text": "x"}'], async (path) => {
    const dataset = await loadDataset({ inputFile: path, customDatasetType: "single_turn" });
    assert.equal(dataset.conversations.length, 1);
    await assert.rejects(
      loadDataset({ inputFile: path, customDatasetType: "sharegpt" }),
      /^RangeError: Unknown custom dataset type "sharegpt"; use one of: single_turn, multi_turn, .*inputs_json, dag_jsonl, run_bundle, sagemaker_data_capture, weka_trace, tracelab, speed_bench_qualitative, .*_32k_high_entropy$/,
    );
    const traced = await loadDataset({
      inputFile: path,
      customDatasetType: "fake_trace",
      loaders: [...await datasetLoaders(), fakeTrace],
    });
    assert.equal(traced.conversations[0].id, "t");
  });
});

Deno.test("loadDataset asks for --custom-dataset-type when no format matches", async () => {
  await withFile(['{"prompt_len": 10}'], async (path) => {
    await assertDatasetError(
      loadDataset({ inputFile: path }),
      `${path}:1: the first record matches no dataset format infermeter reads; pass --custom-dataset-type (one of: ${
        DATASET_LOADERS.names().join(", ")
      })`,
    );
  });
});

Deno.test("loadDataset picks the one registered loader that accepts the first record", async () => {
  const loaders = [await DATASET_LOADERS.get("single_turn").loader(), fakeTrace];
  await withFile(['{"input_length": 10}'], async (path) => {
    assert.equal((await detectDatasetLoader(path, loaders)).name, "fake_trace");
  });
  await withFile(['{"input_length": 10, "text": "both"}'], async (path) => {
    await assertDatasetError(
      detectDatasetLoader(path, loaders),
      `${path}:1: the first record fits several dataset formats (single_turn, fake_trace); pass --custom-dataset-type to choose one`,
    );
  });
});

Deno.test("loadDataset follows a record's type field", async () => {
  await withFile(['{"type": "single_turn", "text": "x"}'], async (path) => {
    assert.equal((await detectDatasetLoader(path)).name, "single_turn");
  });
  await withFile(['{"type": "mooncake_trace", "input_length": 3}'], async (path) => {
    assert.equal((await detectDatasetLoader(path)).name, "mooncake_trace");
  });
  // A "type" that names no format is not a format's name (Bailian's request type): detection goes on by shape.
  await withFile(['{"type": "text", "prompt_len": 3}'], async (path) => {
    await assertDatasetError(
      detectDatasetLoader(path),
      `${path}:1: the first record matches no dataset format infermeter reads ("type" is the string "text", which ` +
        `names no dataset format); pass --custom-dataset-type (one of: ${DATASET_LOADERS.names().join(", ")})`,
    );
  });
  await withFile(['{"type": "single_turn", "turns": []}'], async (path) => {
    await assertDatasetError(
      detectDatasetLoader(path),
      `${path}:1: "type" says single_turn but the record does not have that format; fix the record or its "type"`,
    );
  });
});

Deno.test("loadDataset reports bad first lines, empty files, directories and missing files", async () => {
  await withFile(["", "{oops"], async (path) => {
    await assert.rejects(loadDataset({ inputFile: path }), new RegExp(`^DatasetError: ${path}:2: invalid JSON \\(`));
  });
  await withFile(["", ""], async (path) => {
    await assertDatasetError(
      loadDataset({ inputFile: path }),
      `${path}: has no records; write one JSON object per line`,
    );
  });
  const dir = await Deno.makeTempDir();
  try {
    await assertDatasetError(
      loadDataset({ inputFile: dir }),
      `${dir}: is a directory with no .jsonl or .json files; directories hold them ` +
        "(random_pool, raw_payload, sagemaker_data_capture, weka_trace)",
    );
  } finally {
    await Deno.remove(dir);
  }
  await assertDatasetError(
    loadDataset({ inputFile: "/no/such/inputs.jsonl" }),
    "/no/such/inputs.jsonl: cannot be read (no such file); check the --input-file path",
  );
});

Deno.test("loadDataset surfaces errors from later lines of the chosen loader", async () => {
  await withFile(['{"text": "fine"}', '{"text": "fine"}', "[1, 2]"], async (path) => {
    await assertDatasetError(
      loadDataset({ inputFile: path }),
      `${path}:3: expected a JSON object with "text" or "texts" (got an array) — the line reads: [1, 2]`,
    );
  });
});
