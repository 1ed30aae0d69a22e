import assert from "node:assert/strict";
import { parseProfileArgs } from "../../src/config/parse_profile_args.ts";
import { loadPublicDataset } from "../../src/dataset/public_datasets.ts";
import type { DatasetError } from "../../src/dataset/dataset_error.ts";
import { loadBuiltinTokenizer } from "../../src/tokenizer/builtin_tokenizer.ts";
import { datasetOptions } from "../../src/run/dataset_options.ts";
import { fakeIo } from "../config/_fake_io.ts";

const configOf = async (args: readonly string[]) => (await parseProfileArgs(["-m", "m", ...args], fakeIo())).config;

Deno.test("datasetOptions reads --system-prompt-file once, and refuses a missing or empty one", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/prompt.txt`, "Be exact.\n");
    await Deno.writeTextFile(`${dir}/empty.txt`, "  \n");
    assert.equal(
      datasetOptions(await configOf(["--system-prompt-file", `${dir}/prompt.txt`])).systemPrompt,
      "Be exact.\n",
    );
    assert.equal(datasetOptions(await configOf(["--system-prompt", "Hi"])).systemPrompt, "Hi");
    const missing = await configOf(["--system-prompt-file", `${dir}/none.txt`]);
    assert.throws(() => datasetOptions(missing), /--system-prompt-file .*none\.txt: cannot be read/);
    const empty = await configOf(["--system-prompt-file", `${dir}/empty.txt`]);
    assert.throws(() => datasetOptions(empty), /--system-prompt-file .*empty\.txt is empty/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("datasetOptions maps the think-time cap and refuses dataset filters no public dataset declares", async () => {
  assert.equal(datasetOptions(await configOf(["--inter-turn-delay-cap-seconds", "1.5"])).turnDelayCapMs, 1500);
  const filtered = await configOf(["--public-dataset", "sharegpt", "--dataset-filter", "benchmark=x"]);
  assert.throws(
    () => datasetOptions(filtered),
    /--dataset-filter benchmark=x: --public-dataset sharegpt takes no filters/,
  );
});

Deno.test("--hf-subset replaces a Hugging Face dataset's subset and is refused for a one-file dataset", async () => {
  const tokenizer = await loadBuiltinTokenizer();
  await assert.rejects(
    () => loadPublicDataset("sharegpt", { tokenizer, outputTokensGiven: false, subset: "x" }, () => undefined),
    (error: DatasetError) =>
      /--hf-subset x.*applies to Hugging Face datasets, and --public-dataset sharegpt is one file/.test(error.message),
  );
  await assert.rejects(
    () =>
      loadPublicDataset("llava_onevision", { tokenizer, outputTokensGiven: false, subset: "no_such" }, () => undefined),
    /subset no_such/,
  );
});
