import assert from "node:assert/strict";
import { loadDataset } from "../../src/dataset/load_dataset.ts";
import { reflowIdleGaps } from "../../src/dataset/baseten_trace_loader.ts";
import { DatasetError } from "../../src/dataset/dataset_error.ts";
import { SeededRandom } from "../../src/base/seeded_random.ts";
import type { Dataset } from "../../src/dataset/conversation.ts";

// Written by scripts/gen/baseten_trace_fixtures.py (pyarrow).
const FIXTURES = new URL("../fixtures/baseten/", import.meta.url).pathname;
const TRACE = `${FIXTURES}trace.parquet`;

function load(options: Record<string, unknown> = {}, file = TRACE): Promise<Dataset> {
  return loadDataset({ inputFile: file, rng: new SeededRandom(3), loaderOptions: options });
}

const shape = (d: Dataset) =>
  d.conversations.map((c) => [c.id, ...c.turns.map((t) => t.timestampMs ?? `+${t.delayMs}`)].join(" "));

Deno.test("Baseten trace: detected by extension; sessions by provided id, in time order, prompts verbatim", async () => {
  const d = await load();
  assert.equal(d.format, "baseten_trace");
  assert.deepEqual(shape(d), ["s-a 0 1000", "s-b 250", "row_0 60000", "s-c 61500 64500"]);
  const [a, b] = d.conversations;
  assert.equal(a.contextMode, "message_array_with_responses", "each recorded prompt holds its context");
  assert.equal(b.contextMode, undefined);
  assert.equal(a.turns[1].texts[0], "Continue the haiku with a second stanza about retries.");
  assert.equal(a.turns[1].maxTokens, 24);
  assert.deepEqual(a.turns[1].extra, { min_tokens: 24, hash_ids: [11, 12, 13], block_size: 64 });
  assert.equal(b.turns[0].maxTokens, 1, "a recorded output of 0 (a cancelled request) asks for 1");
  assert.match(d.description ?? "", /6 requests in 4 sessions, first turns over 61\.5 s/);
});

Deno.test("Baseten trace: --replay-speedup, --max-idle-gap-cap-seconds and --open-loop-strict reshape the schedule", async () => {
  assert.deepEqual(shape(await load({ replaySpeedup: 10 })), ["s-a 0 100", "s-b 25", "row_0 6000", "s-c 6150 6450"]);
  // The minute of dead air before row_0 shrinks to 2 s; the gaps after it are kept (1.5 s, 3 s ≥ cap → 2 s).
  assert.deepEqual(shape(await load({ maxIdleGapCapSeconds: 2 })), [
    "s-a 0 1000",
    "s-b 250",
    "row_0 3000",
    "s-c 4500 6500",
  ]);
  assert.deepEqual(shape(await load({ openLoopStrict: true })), [
    "s-a#0 0",
    "s-b#0 250",
    "s-a#1 1000",
    "row_0#0 60000",
    "s-c#0 61500",
    "s-c#1 64500",
  ]);
});

Deno.test("Baseten trace: closed loop sends a continuation the recorded think time after the answer", async () => {
  // s-a: 1000 ms start-to-start − 400 ms recorded e2e = 600 ms; s-c: 3000 − 900 = 2100 ms.
  assert.deepEqual(shape(await load({ openLoopReplay: false })), [
    "s-a 0 +600",
    "s-b 250",
    "row_0 60000",
    "s-c 61500 +2100",
  ]);
  assert.deepEqual(shape(await load({ openLoopReplay: false, replaySpeedup: 2, maxIdleGapCapSeconds: 1 })), [
    "s-a 0 +300",
    "s-b 125",
    "row_0 1125",
    "s-c 1875 +1050",
  ]);
});

Deno.test("Baseten trace: hints and min_tokens can be left out; an --extra-inputs they would overwrite is refused", async () => {
  const d = await load({ omitKvHints: true, forceMinTokens: false });
  assert.ok(d.conversations.every((c) => c.turns.every((t) => t.extra === undefined)));
  await assert.rejects(load({ extraInputs: { min_tokens: 5, hash_ids: [1] } }), (e: Error) => {
    assert.ok(e instanceof DatasetError);
    assert.match(
      e.message,
      /--extra-inputs min_tokens .*--no-force-min-tokens to send yours; --extra-inputs hash_ids .*--omit-kv-hints/,
    );
    return true;
  });
  const ok = await load({ extraInputs: { min_tokens: 5 }, forceMinTokens: false });
  assert.equal(ok.conversations[0].turns[0].extra?.min_tokens, undefined);
});

Deno.test("Baseten trace: --synthesis-max-isl leaves rows out, output scaling and --synthesis-max-osl set max and min tokens", async () => {
  // Rows of 21 and 26 input tokens are left out.
  assert.deepEqual(shape(await load({ synthesisMaxIsl: 20 })), ["s-a 0", "s-b 250", "row_0 60000", "s-c 61500"]);
  const d = await load({ synthesisOutputLenMultiplier: 1.5, synthesisMaxOsl: 30 });
  // Recorded 20, 24, 0 (→ 1), 16, 30, 12: ×1.5 rounded half to even (1.5 → 2), then cut at 30.
  const asked = d.conversations.flatMap((c) => c.turns.map((t) => [t.maxTokens, t.extra?.min_tokens]));
  assert.deepEqual(asked, [[30, 30], [30, 30], [2, 2], [24, 24], [30, 30], [18, 18]]);
  // The prompts are sent as recorded, so what would reshape them is refused, as AIPerf refuses it.
  await assert.rejects(
    load({ synthesisSpeedupRatio: 2, synthesisPromptLenMultiplier: 3 }),
    /--synthesis-speedup-ratio, --synthesis-prompt-len-multiplier cannot reshape a baseten_trace: its prompts are sent as recorded; use --replay-speedup/,
  );
  await assert.rejects(load({ synthesisMaxIsl: 5 }), /--synthesis-max-isl 5 leaves out every row/);
});

Deno.test("Baseten trace: --trace-session-sample-ratio keeps whole sessions, the same ones for a seed", async () => {
  const sampled = (seed: number) =>
    loadDataset({ inputFile: TRACE, rng: new SeededRandom(seed), loaderOptions: { traceSessionSampleRatio: 0.5 } })
      .then(shape);
  assert.deepEqual(await sampled(1), ["s-a 0 1000", "row_0 60000"], "s-a kept whole, s-b and s-c left out");
  assert.deepEqual(await sampled(1), await sampled(1), "deterministic");
  // The kept requests are re-aligned: the earliest is at 0.
  assert.deepEqual(await sampled(5), ["s-b 0", "s-c 61250 64250"]);
});

Deno.test("Baseten trace: files without sessions, without a prompt, with bad values or in Arrow IPC say so", async () => {
  const none = await load({}, `${FIXTURES}no_sessions.parquet`);
  assert.equal(none.conversations.length, 6, "every row its own session");
  await assert.rejects(
    load({}, `${FIXTURES}no_prompt.parquet`),
    /no_prompt\.parquet: lacks the column prompt; a Baseten trace has timestamp_start_unix_ms, prompt/,
  );
  await assert.rejects(
    load({}, `${FIXTURES}negative_output.parquet`),
    /negative_output\.parquet: row 3: "output_tokens" must be a non-negative integer \(got the number -1\)/,
  );
  await assert.rejects(load({}, `${FIXTURES}trace.arrow`), /trace\.arrow: is an Arrow IPC file.*write it as Parquet/);
});

Deno.test("idle-gap reflow: gaps over the cap shrink to it, in time order, positions and ties kept", () => {
  assert.deepEqual(reflowIdleGaps([5000, 0, 100, 100, 9000], 1000), [1100, 0, 100, 100, 2100]);
  assert.deepEqual(reflowIdleGaps([7], 1), [7]);
});
