import assert from "node:assert/strict";
import { SeededRandom } from "../../src/base/seeded_random.ts";
import { DatasetError } from "../../src/dataset/dataset_error.ts";
import {
  roundHalfEven,
  type SynthesisLine,
  synthesizeTrace,
  type TraceSynthesisParams,
} from "../../src/dataset/trace_synthesis.ts";
import { loadDataset } from "../../src/dataset/load_dataset.ts";
import { loadBuiltinTokenizer } from "../../src/tokenizer/builtin_tokenizer.ts";

/**
 * Three lines, blocks of 4 tokens: ids 1 and 2 are shared (A and B), 3, 4 and 9 are their own. The expected values
 * below are the ones AIPerf 0.13's Synthesizer gives for these lines (block_size 4).
 */
const LINES: SynthesisLine[] = [
  { line: 1, turn: { texts: [], timestampMs: 1000, maxTokens: 5 }, synth: { length: 10, hashIds: [1, 2, 3] } },
  { line: 2, turn: { texts: [], timestampMs: 2000, maxTokens: 7 }, synth: { length: 11, hashIds: [1, 2, 4] } },
  { line: 3, turn: { texts: [], timestampMs: 3000 }, synth: { length: 3, hashIds: [9] } },
];

function run(p: TraceSynthesisParams, lines = LINES, seed = 1) {
  return synthesizeTrace("t.jsonl", lines, p, 4, new SeededRandom(seed));
}
const shape = (out: SynthesisLine[]) => out.map((l) => [l.synth?.length, l.synth?.hashIds]);

Deno.test("trace synthesis stretches shared prefixes by whole multiples, new ids above the stretched ones", () => {
  // Shared {1,2} → max 2; ×2: h → 2h, 2h+1; new ids from (2+1)·2+1 = 7.
  assert.deepEqual(shape(run({ prefixLenMultiplier: 2 })), [
    [18, [2, 3, 4, 5, 7]], // 4 prefix blocks (16) + its own 2 tokens in one new block
    [19, [2, 3, 4, 5, 8]],
    [3, [9]], // no shared prefix: its own 3 tokens, one new block
  ]);
});

Deno.test("trace synthesis adds new blocks for a fractional prefix multiplier and cuts for one below 1", () => {
  // ×1.5: ceil(2·1.5) = 3 prefix blocks, the third a new id; new ids from (2+1)·1+1 = 4.
  assert.deepEqual(shape(run({ prefixLenMultiplier: 1.5 })), [[14, [1, 2, 4, 5]], [15, [1, 2, 6, 7]], [3, [8]]]);
  // ×0.5: max(1, floor(2·0.5)) = 1 block kept; a line without a shared prefix still counts one block, as AIPerf.
  assert.deepEqual(shape(run({ prefixLenMultiplier: 0.5 })), [[6, [1, 4]], [7, [1, 5]], [7, [6]]]);
});

Deno.test("trace synthesis scales each line's own prompt and caps synthesized lengths at the max ISL", () => {
  // ×3: A's own 2 tokens → 6 (2 blocks), B's 3 → 9 (3 blocks), C's 3 → 9 (3 blocks).
  assert.deepEqual(shape(run({ promptLenMultiplier: 3 })), [
    [14, [1, 2, 4, 5]],
    [17, [1, 2, 6, 7, 8]],
    [9, [9, 10, 11]],
  ]);
  assert.deepEqual(run({ promptLenMultiplier: 3, maxIsl: 15 }).map((l) => l.synth?.length), [14, 15, 9]);
});

Deno.test("trace synthesis divides timestamps by the speed-up and rounds scaled outputs half to even", () => {
  const out = run({ speedupRatio: 3, outputLenMultiplier: 1.5 });
  assert.deepEqual(out.map((l) => l.turn.timestampMs), [333, 666, 1000]);
  // 5·1.5 = 7.5 → 8, 7·1.5 = 10.5 → 10; a line without output_length keeps none.
  assert.deepEqual(out.map((l) => l.turn.maxTokens), [8, 10, undefined]);
  assert.deepEqual(run({ outputLenMultiplier: 0 }).map((l) => l.turn.maxTokens), [1, 1, undefined]);
  // The speed-up alone keeps every length and the shared ids; the lines' own blocks get new ids, as in AIPerf.
  assert.deepEqual(shape(run({ speedupRatio: 2 })), [[10, [1, 2, 4]], [11, [1, 2, 5]], [3, [6]]]);
  assert.deepEqual([0.5, 1.5, 2.5, 2.4, 2.6].map(roundHalfEven), [0, 2, 2, 2, 3]);
});

Deno.test("trace synthesis caps alone filter lines and cut outputs without reshaping", () => {
  const out = run({ maxIsl: 10, maxOsl: 6 });
  assert.deepEqual(out.map((l) => l.line), [1, 3]);
  assert.deepEqual(shape(out), [[10, [1, 2, 3]], [3, [9]]]);
  assert.deepEqual(run({ maxOsl: 6 }).map((l) => l.turn.maxTokens), [5, 6, undefined]);
  assert.throws(() => run({ maxIsl: 2 }), /--synthesis-max-isl 2 leaves out every line/);
});

Deno.test("trace synthesis spreads lines over independent prefix trees, the same for the same seed", () => {
  const many: SynthesisLine[] = Array.from({ length: 40 }, (_, i) => ({
    line: i + 1,
    turn: { texts: [] },
    synth: { length: 12, hashIds: [1, 2, 100 + i] },
  }));
  const out = run({ prefixRootMultiplier: 3 }, many, 7);
  // Identity multipliers: ids 1, 2 then one new block each, 4 … 43; the trees are offset by 44.
  const trees = out.map((l, i) => {
    const ids = l.synth!.hashIds;
    const k = (ids[0] - 1) / 44;
    assert.deepEqual(ids, [1, 2, 4 + i].map((h) => h + k * 44));
    return k;
  });
  assert.deepEqual(new Set(trees), new Set([0, 1, 2]));
  assert.deepEqual(run({ prefixRootMultiplier: 3 }, many, 7), out);
  assert.notDeepEqual(run({ prefixRootMultiplier: 3 }, many, 8), out);
});

Deno.test("trace synthesis refuses a line shorter than its shared prefix, naming its line", () => {
  const short: SynthesisLine[] = [...LINES, { line: 4, turn: { texts: [] }, synth: { length: 5, hashIds: [1, 2] } }];
  assert.throws(() => run({ prefixLenMultiplier: 2 }, short), (e: unknown) => {
    assert.ok(e instanceof DatasetError);
    assert.match(e.message, /t\.jsonl:4: input_length 5 is below its 2 shared prefix blocks of 4 tokens \(8\)/);
    return true;
  });
});

Deno.test("a mooncake trace loaded with --synthesis-* options replays as the synthesized trace written out", async () => {
  const tokenizer = await loadBuiltinTokenizer();
  const dir = await Deno.makeTempDir();
  const load = async (lines: string[], options: Record<string, unknown>) => {
    const path = `${dir}/${crypto.randomUUID()}.jsonl`;
    await Deno.writeTextFile(path, lines.join("\n"));
    return await loadDataset({ inputFile: path, tokenizer, seed: 3, loaderOptions: { islBlockSize: 4, ...options } });
  };
  try {
    const synthesized = await load([
      `{"session_id":"s","timestamp":1000,"input_length":10,"output_length":5,"hash_ids":[1,2,3]}`,
      `{"timestamp":1500,"input_length":40,"output_length":9,"hash_ids":[7]}`,
      `{"session_id":"s","delay":400,"input_length":11,"output_length":7,"hash_ids":[1,2,4]}`,
    ], { synthesisPrefixLenMultiplier: 2, synthesisSpeedupRatio: 2, synthesisMaxIsl: 30, synthesisMaxOsl: 6 });
    // The 40-token line is left out; the session's two lines stay one conversation, in order: 4 stretched prefix
    // blocks and one new block each, timestamps halved, a delay kept, the second output cut to 6.
    const written = await load([
      `{"session_id":"s","timestamp":500,"input_length":18,"output_length":5,"hash_ids":[2,3,4,5,7]}`,
      `{"session_id":"s","delay":400,"input_length":19,"output_length":6,"hash_ids":[2,3,4,5,8]}`,
    ], {});
    assert.deepEqual(synthesized.conversations, written.conversations);
    const [first, second] = synthesized.conversations[0].turns;
    assert.deepEqual([first.timestampMs, second.delayMs, first.maxTokens, second.maxTokens], [500, 400, 5, 6]);
    // The two prompts share their stretched prefix.
    const [a, b] = [first, second].map((t) => tokenizer.encode(t.texts[0]));
    assert.deepEqual(a.slice(0, 16), b.slice(0, 16));
    assert.notDeepEqual(a, b);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
