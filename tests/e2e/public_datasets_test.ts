/**
 * `--public-dataset` end to end: the CLI reads Hugging Face datasets from a hub cache (the fixtures, in the exact
 * layout `hf download` writes) and the server's journal shows what each request carried.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, runCli, startSim, tempDir } from "./cli_harness.ts";
import { readRequestJournal } from "../../src/sim/read_request_journal.ts";

const HUB = new URL("../fixtures/hf_hub", import.meta.url).pathname;
const EXPECTED_WAV = new URL("../fixtures/public_datasets/asr_expected_wav.json", import.meta.url).pathname;
const CHAT = "/v1/chat/completions";

type Part = {
  type: string;
  text?: string;
  image_url?: { url: string };
  input_audio?: { data: string; format: string };
};
type Body = { messages: { role: string; content: string | Part[] }[] };

async function profile(name: string, tmp: string, extra: string[] = []): Promise<Body[]> {
  const journal = join(tmp, `${name}.jsonl`);
  await using sim = await startSim(["--ttft", "2", "--itl", "0.1", "--record-requests", journal]);
  const run = await runCli(
    [
      "profile",
      "--ui",
      "none",
      "-m",
      "m",
      "--url",
      sim.url,
      "--public-dataset",
      name,
      "--artifact-dir",
      name,
      ...extra,
    ],
    { cwd: tmp, env: { HOME: tmp, HF_HUB_CACHE: HUB } },
  );
  assertExit(run, 0);
  await sim.stop();
  return (await readRequestJournal(journal)).filter((e) => e.path === CHAT).map((e) => e.body as Body);
}

Deno.test("--public-dataset reads text, multi-turn, image and audio datasets from the hub cache", async () => {
  await using tmp = await tempDir();

  // Multi-turn: each MT-Bench row is a session; the second turn carries the first and the server's real reply.
  const mt = await profile("spec_al_mtbench", tmp.path, ["--request-count", "3"]);
  assert.equal(mt.length, 3);
  const second = mt.find((b) => b.messages.length === 3)!;
  assert.deepEqual(second.messages.map((m) => m.role), ["user", "assistant", "user"]);
  assert.equal(second.messages[0].content, "Write a travel blog post about Hawaii.");
  assert.equal(second.messages[2].content, "Rewrite it starting every sentence with A.");
  assert.ok(typeof second.messages[1].content === "string" && second.messages[1].content.length > 0);

  // Images: the question and an image_url data URL.
  const mmstar = await profile("mmstar", tmp.path, ["--request-count", "2"]);
  const parts = mmstar.map((b) => b.messages[0].content as Part[]).sort((a, b) => a[0].text!.localeCompare(b[0].text!));
  assert.deepEqual(parts.map((p) => p.map((x) => x.type)), [["text", "image_url"], ["text", "image_url"]]);
  assert.equal(parts[0][0].text, "What shape is shown?");
  assert.match(parts[0][1].image_url!.url, /^data:image\/jpeg;base64,\/9j\//);
  assert.match(parts[1][1].image_url!.url, /^data:image\/png;base64,/);

  // Audio: the fixed prompt and the clip as AIPerf encodes it (WAV, base64), capped at the request count.
  const expected = JSON.parse(await Deno.readTextFile(EXPECTED_WAV)) as Record<string, string>;
  const asr = await profile("librispeech", tmp.path, ["--request-count", "1"]);
  assert.equal(asr.length, 1);
  const [text, audio] = asr[0].messages[0].content as Part[];
  assert.equal(text.text, "Transcribe this audio.");
  assert.deepEqual(audio.input_audio, { data: expected["a.flac"], format: "wav" });
});

Deno.test("--public-dataset without the data exits 2 saying where to put it; a filter it does not take is refused", async () => {
  await using tmp = await tempDir();
  const base = ["profile", "--ui", "none", "-m", "m", "--url", "http://127.0.0.1:9", "--public-dataset"];
  const missing = await runCli([...base, "aimo"], { cwd: tmp.path, env: { HOME: tmp.path, HF_HUB_CACHE: tmp.path } });
  assertExit(missing, 2);
  assert.match(
    missing.stderr,
    /needs AI-MO\/NuminaMath-TIR \(split train\) on this machine \(infermeter never downloads/,
  );
  const refused = await runCli([...base, "aimo", "--dataset-filter", "harness=claude_code"], {
    cwd: tmp.path,
    env: { HOME: tmp.path },
  });
  assertExit(refused, 2);
  assert.match(refused.stderr, /--public-dataset aimo takes no filters \(only exgentic and exgentic_v2 declare some\)/);
});
