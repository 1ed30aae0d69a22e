import assert from "node:assert/strict";
import { join } from "node:path";
import {
  candidatePaths,
  type FilePublicDataset,
  loadPublicDataset,
  PUBLIC_DATASETS,
} from "../../src/dataset/public_datasets.ts";
import { shareGptPairs } from "../../src/dataset/sharegpt_loader.ts";
import { loadBuiltinTokenizer } from "../../src/tokenizer/builtin_tokenizer.ts";
import { DatasetError } from "../../src/dataset/dataset_error.ts";

const tokenizer = await loadBuiltinTokenizer();
const HUB = new URL("../fixtures/hf_hub", import.meta.url).pathname;
const envOf = (vars: Record<string, string>) => (name: string) => vars[name];

Deno.test("sharegpt is read from the Hugging Face hub cache layout, pairs as turns, short or lone entries dropped", async () => {
  const dataset = await loadPublicDataset(
    "sharegpt",
    { tokenizer, outputTokensGiven: false },
    envOf({ HF_HUB_CACHE: HUB }),
  );
  // a1 (two human → gpt pairs), b2 (the system message skipped), c3 (no roles: the first two values); "short" has a
  // 1-token prompt, "alone" no answer.
  assert.deepEqual(dataset.conversations.map((c) => c.turns.length), [2, 1, 1]);
  const [a1, b2, c3] = dataset.conversations;
  assert.equal(a1.turns[1].texts[0], "Suggest three things to see there in one afternoon.");
  assert.equal(b2.turns[0].texts[0], "Explain in simple words what a hash table is used for.");
  assert.equal(c3.turns[0].texts[0], "Write a haiku about the sea, please.");
  // Each turn asks for as many tokens as the recorded answer had.
  assert.equal(
    a1.turns[0].maxTokens,
    tokenizer.count("Lisbon is the capital of Portugal, famous for its hills, trams and light."),
  );
  assert.equal(a1.turns[0].inputTokens, tokenizer.count("What is the capital of Portugal and why is it famous?"));
  assert.equal(dataset.defaultSampling, "sequential");
  // HF_HOME/hub is the hub cache when HF_HUB_CACHE is unset.
  const viaHome = await loadPublicDataset(
    "sharegpt",
    { tokenizer, outputTokensGiven: false },
    envOf({ HF_HOME: join(HUB, "..", "no_such_home") }),
  ).catch((e) => e);
  assert.ok(viaHome instanceof DatasetError);
});

Deno.test("a missing public dataset file says it is never downloaded and where to put it", async () => {
  const env = envOf({ HOME: "/home/u", INFERMETER_DATASET_DIR: "/data" });
  const err = await loadPublicDataset("sharegpt", { tokenizer, outputTokensGiven: false }, env).catch((e) => e);
  assert.ok(err instanceof DatasetError);
  assert.match(
    err.message,
    /needs ShareGPT_V3_unfiltered_cleaned_split\.json on this machine \(infermeter never downloads/,
  );
  assert.match(err.message, /https:\/\/huggingface\.co\/datasets\/anon8231489123\/ShareGPT_Vicuna_unfiltered/);
  assert.match(err.message, /\/data\/ShareGPT_V3_unfiltered_cleaned_split\.json/);
  assert.match(err.message, /\.cache\/aiperf\/datasets\/ShareGPT_V3_unfiltered_cleaned_split\.json/);
  assert.match(
    err.message,
    /\/home\/u\/\.cache\/huggingface\/hub\/datasets--anon8231489123--ShareGPT_Vicuna_unfiltered\/snapshots\/<revision>\//,
  );
  assert.deepEqual(
    candidatePaths(PUBLIC_DATASETS.find((d) => d.name === "sharegpt") as FilePublicDataset, envOf({ HF_HOME: "/hf" }))
      .at(-1),
    "/hf/hub/datasets--anon8231489123--ShareGPT_Vicuna_unfiltered/snapshots/*/ShareGPT_V3_unfiltered_cleaned_split.json",
  );
  await assert.rejects(
    () => loadPublicDataset("exgentic", { tokenizer, outputTokensGiven: false }, env),
    /exgentic: needs Exgentic\/agent-llm-traces \(split train\) on this machine \(infermeter never downloads/,
  );
});

Deno.test("ShareGPT pairs: adjacent human → gpt messages, else the first two values", () => {
  assert.deepEqual(
    shareGptPairs([{ from: "gpt", value: "x" }, { from: "human", value: "q1" }, { from: "gpt", value: "a1" }, {
      from: "human",
      value: "q2",
    }]),
    [["q1", "a1"]],
  );
  assert.deepEqual(shareGptPairs([{ value: "q" }, { value: "a" }]), [["q", "a"]]);
  assert.deepEqual(shareGptPairs([{ from: "human", value: "q" }]), []);
  assert.deepEqual(shareGptPairs("nope"), []);
});
