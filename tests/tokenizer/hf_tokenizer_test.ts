import assert from "node:assert/strict";
import { loadHfTokenizer } from "../../src/tokenizer/hf_tokenizer.ts";
import { HfTokenizer } from "../../src/tokenizer/hf_library_tokenizer.ts";
import { loadTokenizer } from "../../src/tokenizer/load_tokenizer.ts";

const FIXTURE_DIR = new URL("../fixtures/tiny_bpe/", import.meta.url).pathname;
const FIXTURE_FILE = `${FIXTURE_DIR}tokenizer.json`;

// Ids from the fixture's vocabulary (see tests/fixtures/tiny_bpe/generate.ts): bytes are ids 0-255.
const HELLO = 259;
const SPACE_WORLD = 273;
const BOS = 285;
const EOS = 286;

Deno.test("HfTokenizer loads a model directory and encodes without special tokens", async () => {
  const tok = await loadHfTokenizer(FIXTURE_DIR);
  assert.deepEqual(tok.encode("hello world"), [HELLO, SPACE_WORLD]);
  assert.equal(tok.count("hello world"), 2);
  assert.equal(tok.name, FIXTURE_DIR);
});

Deno.test("HfTokenizer loads a tokenizer.json file directly", async () => {
  const tok = await loadHfTokenizer(FIXTURE_FILE);
  assert.deepEqual(tok.encode("hello world"), [HELLO, SPACE_WORLD]);
  assert.equal(tok.name, FIXTURE_FILE);
});

Deno.test("HfTokenizer decodes exactly the tokens given, special tokens included", async () => {
  const tok = await loadHfTokenizer(FIXTURE_DIR);
  assert.equal(tok.decode([HELLO, SPACE_WORLD]), "hello world");
  assert.equal(tok.decode([BOS, HELLO, EOS]), "<|bos|>hello<|eos|>");
  assert.equal(tok.decode([]), "");
  // No clean-up of spaces before punctuation.
  assert.equal(tok.decode(tok.encode("a , b .")), "a , b .");
});

Deno.test("HfTokenizer round-trips unicode through byte-level tokens", async () => {
  const tok = await loadHfTokenizer(FIXTURE_DIR);
  for (const text of ["日本語 😀 café", "  spaces\n\tand tabs ", "the token bench", ""]) {
    assert.equal(tok.decode(tok.encode(text)), text);
    assert.equal(tok.count(text), tok.encode(text).length);
  }
});

Deno.test("HfTokenizer matches added tokens written in the text, as transformers does", async () => {
  const tok = await loadHfTokenizer(FIXTURE_DIR);
  assert.deepEqual(tok.encode("<|eos|>"), [EOS]);
});

Deno.test("HfTokenizer works without a tokenizer_config.json", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.copyFile(FIXTURE_FILE, `${dir}/tokenizer.json`);
    const tok = await loadHfTokenizer(dir);
    assert.deepEqual(tok.encode("hello world"), [HELLO, SPACE_WORLD]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("HfTokenizer explains a directory without tokenizer.json", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await assert.rejects(loadHfTokenizer(dir), (error: Error) => {
      assert.equal(
        error.message,
        `Tokenizer directory ${dir} has no tokenizer.json; download the model's tokenizer.json into it or pass --tokenizer builtin.`,
      );
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("HfTokenizer names the file when tokenizer.json is not JSON or not a tokenizer", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/tokenizer.json`, "{not json");
    await assert.rejects(loadHfTokenizer(dir), new RegExp(`^Error: ${dir}/tokenizer.json is not valid JSON \\(`));
    await Deno.writeTextFile(`${dir}/tokenizer.json`, "[1, 2]");
    await assert.rejects(loadHfTokenizer(dir), /tokenizer\.json must hold a JSON object describing a tokenizer/);
    await Deno.writeTextFile(`${dir}/tokenizer.json`, '{"model": {"type": "Nope"}}');
    await assert.rejects(loadHfTokenizer(dir), /is not a tokenizer this build can run/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("HfTokenizer can be built from parsed JSON", async () => {
  const json = JSON.parse(await Deno.readTextFile(FIXTURE_FILE));
  const tok = new HfTokenizer("inline", json);
  assert.deepEqual(tok.encode("hello"), [HELLO]);
});

Deno.test("loadTokenizer picks builtin by default and for 'builtin'", async () => {
  assert.equal((await loadTokenizer()).name, "builtin");
  assert.equal((await loadTokenizer("builtin")).name, "builtin");
  assert.equal((await loadTokenizer("")).name, "builtin");
});

Deno.test("loadTokenizer loads local paths as Hugging Face tokenizers", async () => {
  const tok = await loadTokenizer(FIXTURE_DIR);
  assert.deepEqual(tok.encode("hello world"), [HELLO, SPACE_WORLD]);
});

Deno.test("loadTokenizer refuses a hub id missing from the local cache, saying where its files belong", async () => {
  const env = { HF_HUB_CACHE: "/nonexistent-hub-cache" };
  await assert.rejects(loadTokenizer("Qwen/Qwen3-0.6B", env), (error: Error) => {
    assert.equal(
      error.message,
      'Tokenizer "Qwen/Qwen3-0.6B" is neither a local file or directory nor in the Hugging Face cache, and ' +
        "infermeter never downloads: put the model's tokenizer.json (and tokenizer_config.json) in " +
        "/nonexistent-hub-cache/models--Qwen--Qwen3-0.6B/snapshots/<revision>/ (what 'huggingface-cli download " +
        "Qwen/Qwen3-0.6B tokenizer.json tokenizer_config.json' does on a machine with network), or pass their " +
        "directory with --tokenizer <dir>; HF_HUB_CACHE or HF_HOME choose the cache; or use --tokenizer builtin.",
    );
    return true;
  });
});
