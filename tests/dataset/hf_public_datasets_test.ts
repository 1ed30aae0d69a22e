import assert from "node:assert/strict";
import { loadPublicDataset } from "../../src/dataset/public_datasets.ts";
import { loadBuiltinTokenizer } from "../../src/tokenizer/builtin_tokenizer.ts";
import { DatasetError } from "../../src/dataset/dataset_error.ts";
import type { Dataset } from "../../src/dataset/conversation.ts";
import { PUBLIC_DATASET_NAMES } from "../../src/dataset/public_dataset_names.ts";

const tokenizer = await loadBuiltinTokenizer();
const HUB = new URL("../fixtures/hf_hub", import.meta.url).pathname;
const FILES = new URL("../fixtures/public_datasets", import.meta.url).pathname;

async function load(name: string, vars: Record<string, string> = {}, limit?: number): Promise<Dataset> {
  const env = { HF_HUB_CACHE: HUB, INFERMETER_DATASET_DIR: FILES, ...vars };
  return await loadPublicDataset(
    name,
    { tokenizer, outputTokensGiven: false, limit },
    (n) => env[n as keyof typeof env],
  );
}

const prompts = (d: Dataset) => d.conversations.map((c) => c.turns.map((t) => t.texts.join("|")));

Deno.test("instruction/response datasets: one turn per row from the prompt column, blank or missing prompts skipped", async () => {
  for (const name of ["aimo", "aimo_aime", "aimo_numina_cot", "aimo_numina_1_5"]) {
    const d = await load(name);
    // Rows 2 ("   ") and 4 (null) skipped; Parquet fixtures hold two row groups, read in order.
    assert.deepEqual(
      prompts(d),
      [["What is 2 + 3?"], ["Find x when 3x = 12."], ["How many primes are below 20?"]],
      name,
    );
    assert.equal(d.defaultSampling, "sequential");
    assert.equal(d.conversations[1].id, `${name}_000001`);
  }
  // The dataset card's configs pick the subset and split (main/test, not main/train nor socratic/test).
  assert.deepEqual(prompts(await load("spec_al_gsm8k")), [
    ["Tom has 3 apples and buys 2 more. How many?"],
    ["A train goes 60 km/h for 2 h."],
  ]);
  assert.deepEqual(prompts(await load("spec_al_mbpp")), [
    ["Write a function to reverse a list."],
    ["Write a function to sum a list."],
  ]);
  assert.deepEqual(prompts(await load("spec_al_math500")), [["Compute $1+1$."], ["Solve $x^2=4$."]]);
  assert.deepEqual(prompts(await load("spec_al_humaneval")), [['def add(a, b):\n    """Add two numbers."""\n']]);
  assert.deepEqual(prompts(await load("instruct_coder")), [
    ["Add type hints to this function."],
    ["Rename variable a to count."],
  ]);
});

Deno.test("blazedit fills AIPerf's template from the code and change request columns", async () => {
  const d = await load("blazedit_5k");
  assert.equal(
    d.conversations[0].turns[0].texts[0],
    "Given a code file, please apply the change requests and generate the new file.\n\nOriginal file:\n```python\n" +
      "def f():\n    return 5\n\n```\n\nChange request:\nReturn twice the value.\n\n" +
      'Please generate the new code file in the "New file" section below.',
  );
  assert.match((await load("blazedit_10k")).conversations[0].turns[0].texts[0], /return 10\n/);
});

Deno.test("spec_bench takes each question's first turn, trimmed; spec_al_mtbench makes every prompt a turn", async () => {
  assert.deepEqual(prompts(await load("spec_bench")), [
    ["Compose a short poem about tea."],
    ["What is the boiling point of water?"],
  ]);
  assert.deepEqual(prompts(await load("spec_al_mtbench")), [
    ["Write a travel blog post about Hawaii.", "Rewrite it starting every sentence with A."],
    ["Explain recursion to a child."],
  ]);
});

Deno.test("vision datasets carry the row's first image as a data URL in its own format", async () => {
  const mmstar = await load("mmstar");
  // The third row's question is empty: skipped.
  assert.deepEqual(prompts(mmstar), [["Which color is the square?"], ["What shape is shown?"]]);
  const [png, jpeg] = mmstar.conversations.map((c) => c.turns[0].media![0]);
  assert.equal(png.kind, "image");
  assert.match(png.dataUrl!, /^data:image\/png;base64,iVBORw0KGgo/);
  assert.match(jpeg.dataUrl!, /^data:image\/jpeg;base64,\/9j\//);

  const arena = await load("vision_arena");
  // Messages wrapped in their own lists; the first user message, not the first message; `<image>` removed.
  assert.deepEqual(prompts(arena), [["Describe this picture."], ["What is in the image?"]]);
  assert.equal(arena.conversations[0].turns[0].media!.length, 1);
  assert.equal(arena.conversations[1].turns[0].media, undefined);

  const llava = await load("llava_onevision");
  // Subset sharegpt4o, not other; without a user message the first message is the prompt.
  assert.deepEqual(prompts(llava), [["What is drawn here?"], ["only an answer"]]);
  assert.match(llava.conversations[0].turns[0].media![0].dataUrl!, /^data:image\/jpeg;base64,/);
});

Deno.test("mmvu joins the question and non-empty choices and sends the video by URL", async () => {
  const d = await load("mmvu");
  assert.deepEqual(prompts(d), [
    ["What happens to the ball? A.It falls B.It rises D.It stops"],
    ["Which organ is shown? A.Heart B.Lung C.Liver"],
  ]);
  assert.deepEqual(d.conversations.map((c) => c.turns[0].media), [
    [{ kind: "video", url: "https://huggingface.co/datasets/yale-nlp/MMVU/resolve/main/videos/a.mp4" }],
    [{ kind: "video", url: "file://videos/b.mp4" }],
  ]);
});

Deno.test("speech datasets: clips re-encoded as AIPerf's soundfile WAV, byte for byte; long or empty clips skipped", async () => {
  const expected = JSON.parse(await Deno.readTextFile(`${FILES}/asr_expected_wav.json`)) as Record<string, string>;
  for (const name of ["librispeech", "voxpopuli", "gigaspeech", "ami", "spgispeech"]) {
    const d = await load(name);
    // a.flac (FLAC, 16 kHz) and b.wav (WAV, 8 kHz); the 31 s clip and the row without bytes are skipped.
    assert.equal(d.conversations.length, 2, name);
    for (const [i, file] of ["a.flac", "b.wav"].entries()) {
      const turn = d.conversations[i].turns[0];
      assert.deepEqual(turn.texts, ["Transcribe this audio."]);
      assert.equal(turn.media![0].dataUrl, `data:audio/wav;base64,${expected[file]}`, `${name} ${file}`);
    }
  }
});

Deno.test("a streamed dataset stops at the limit; others read every row", async () => {
  assert.equal((await load("librispeech", {}, 1)).conversations.length, 1);
  assert.equal((await load("vision_arena", {}, 1)).conversations.length, 1);
  assert.equal((await load("aimo", {}, 1)).conversations.length, 3);
});

Deno.test("a repository copy in INFERMETER_DATASET_DIR/<owner>/<name> is read before the hub cache", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/openai/gsm8k/main`, { recursive: true });
    const snap = `${HUB}/datasets--openai--gsm8k/snapshots/0123456789abcdef`;
    await Deno.copyFile(`${snap}/README.md`, `${dir}/openai/gsm8k/README.md`);
    await Deno.copyFile(
      `${snap}/main/train-00000-of-00001.parquet`,
      `${dir}/openai/gsm8k/main/test-00000-of-00001.parquet`,
    );
    assert.deepEqual(prompts(await load("spec_al_gsm8k", { INFERMETER_DATASET_DIR: dir })), [["train row"]]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a missing dataset names its repository, subset, split and every place it may be put", async () => {
  const err = await load("librispeech", { HF_HUB_CACHE: "/nowhere/hub", INFERMETER_DATASET_DIR: "/data" })
    .catch((e) => e);
  assert.ok(err instanceof DatasetError);
  assert.match(
    err.message,
    /^--public-dataset librispeech: needs openslr\/librispeech_asr \(subset clean, split test\)/,
  );
  assert.match(err.message, /never downloads/);
  assert.match(err.message, /hf download --repo-type dataset openslr\/librispeech_asr/);
  assert.match(
    err.message,
    /\/data\/openslr\/librispeech_asr, \/nowhere\/hub\/datasets--openslr--librispeech_asr\/snapshots\/<revision>\./,
  );
  // A copy without the wanted subset says what it found.
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/openslr/librispeech_asr/other/test`, { recursive: true });
    await Deno.writeTextFile(`${dir}/openslr/librispeech_asr/README.md`, "---\nconfigs:\n- config_name: other\n---\n");
    const partial = await load("librispeech", { HF_HUB_CACHE: "/nowhere", INFERMETER_DATASET_DIR: dir }).catch((e) =>
      e
    );
    assert.match(partial.message, /Found but unusable: .*has no subset 'clean' \(its card lists: other\)/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("every AIPerf public dataset name is read", async () => {
  assert.deepEqual(Object.keys(PUBLIC_DATASET_NAMES.unsupported()), []);
  // The agent-trace datasets (Weka, Exgentic) have their own test with their fixtures.
  const agent = /^(exgentic|semianalysis_cc_traces_weka|weka_hf)/;
  for (const name of PUBLIC_DATASET_NAMES.names().filter((n) => !agent.test(n))) {
    assert.ok((await load(name)).conversations.length > 0, name);
  }
});
