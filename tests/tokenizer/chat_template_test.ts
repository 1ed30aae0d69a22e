/**
 * `--apply-chat-template`: the model's template read from its directory or the Hugging Face cache, rendered with
 * the generation prompt and BOS, and the ISL the CLI records for it (checked against the server's journal).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadChatTemplate } from "../../src/tokenizer/chat_template.ts";
import { loadHfTokenizer } from "../../src/tokenizer/hf_tokenizer.ts";
import { assertExit, readJsonl, recordValue, runCli, startSim, tempDir } from "../e2e/cli_harness.ts";
import { readRequestJournal } from "../../src/sim/read_request_journal.ts";

const FIXTURE = new URL("../fixtures/tiny_bpe/", import.meta.url).pathname;
const TEMPLATE = "{{ bos_token }}{% for m in messages %}<|{{ m.role }}|>\n{{ m.content }}{{ eos_token }}{% endfor %}" +
  "{% if add_generation_prompt %}<|assistant|>\n{% endif %}";

async function modelDir(root: string, files: Record<string, string>): Promise<string> {
  await Deno.mkdir(root, { recursive: true });
  for (const name of ["tokenizer.json", "tokenizer_config.json"]) await Deno.copyFile(FIXTURE + name, join(root, name));
  for (const [name, text] of Object.entries(files)) await Deno.writeTextFile(join(root, name), text);
  return root;
}

Deno.test("a model directory's chat_template.jinja renders with BOS, EOS and the generation prompt", async () => {
  await using tmp = await tempDir();
  const dir = await modelDir(join(tmp.path, "m"), { "chat_template.jinja": TEMPLATE });
  const template = await loadChatTemplate(dir, undefined, () => undefined);
  assert.equal(template.source, `${dir}/chat_template.jinja`);
  assert.equal(
    template.render([{ role: "system", content: "be brief" }, { role: "user", content: "hi" }]),
    "<|bos|><|system|>\nbe brief<|eos|><|user|>\nhi<|eos|><|assistant|>\n",
  );
});

Deno.test("the template comes from tokenizer_config.json, or from the Hugging Face cache by model id", async () => {
  await using tmp = await tempDir();
  const config = JSON.parse(await Deno.readTextFile(FIXTURE + "tokenizer_config.json"));
  const snapshot = join(tmp.path, "hub", "models--org--m", "snapshots", "abc123");
  await Deno.mkdir(snapshot, { recursive: true });
  await Deno.writeTextFile(join(tmp.path, "hub", "models--org--m", "refs-not-used"), "");
  await Deno.mkdir(join(tmp.path, "hub", "models--org--m", "refs"));
  await Deno.writeTextFile(join(tmp.path, "hub", "models--org--m", "refs", "main"), "abc123\n");
  await Deno.writeTextFile(
    join(snapshot, "tokenizer_config.json"),
    JSON.stringify({
      ...config,
      chat_template: [{ name: "default", template: TEMPLATE }, { name: "tool_use", template: "x" }],
    }),
  );
  const env = (name: string) => name === "HF_HUB_CACHE" ? join(tmp.path, "hub") : undefined;
  const template = await loadChatTemplate("builtin", "org/m", env);
  assert.equal(template.source, `${snapshot}/tokenizer_config.json`);
  assert.equal(template.render([{ role: "user", content: "q" }]), "<|bos|><|user|>\nq<|eos|><|assistant|>\n");
  await assert.rejects(() => loadChatTemplate("builtin", "org/other", env), /no chat template found/);
  await assert.rejects(
    () => loadChatTemplate(FIXTURE, undefined, () => undefined),
    /no chat template found in .*tiny_bpe/,
  );
});

Deno.test("profile --apply-chat-template records the ISL of the rendered template the server receives", async () => {
  await using tmp = await tempDir();
  const dir = await modelDir(join(tmp.path, "m"), { "chat_template.jinja": TEMPLATE });
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim(["--record-requests", journal]);
  // deno-fmt-ignore
  const run = await runCli([
    "profile", "--ui", "none", "-m", "m", "--url", sim.url, "--tokenizer", dir, "--apply-chat-template",
    "--request-count", "3", "--isl", "20", "--osl", "2", "--artifact-dir", "out",
  ], { cwd: tmp.path });
  assertExit(run, 0);
  await sim.stop();
  const tok = await loadHfTokenizer(dir);
  const template = await loadChatTemplate(dir, undefined, () => undefined);
  const sent = (await readRequestJournal(journal)).filter((e) => e.path === "/v1/chat/completions");
  const records = await readJsonl(join(tmp.path, "out", "profile_export.jsonl"));
  assert.equal(records.length, 3);
  for (const r of records) {
    const entry = sent.find((e) => e.headers["x-request-id"] === r.record.metadata.x_request_id)!;
    const messages = (entry.body as { messages: { role: string; content: string }[] }).messages;
    const expected = tok.count(template.render(messages));
    assert.equal(recordValue(r.record, "input_sequence_length"), expected);
    assert.ok(expected > tok.count(messages.at(-1)!.content), "the template adds tokens");
  }
});
