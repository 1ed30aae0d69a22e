import assert from "node:assert/strict";
import { parseAgenticCodeConfig } from "../../src/dataset/agentic_code_config.ts";
import {
  AgenticCodeSynthesizer,
  mooncakeRows,
  PrefixAllocator,
  sampleLognormal,
} from "../../src/dataset/agentic_code_synthesizer.ts";
import { percentileStats, qualityReport } from "../../src/dataset/agentic_code_quality.ts";
import { SeededRandom } from "../../src/base/seeded_random.ts";

Deno.test("agentic-code config: AIPerf's defaults, μ and σ from mean and median, and its checks", () => {
  const c = parseAgenticCodeConfig({});
  assert.equal(c.maxPromptTokens, 200_000);
  assert.equal(c.newTokensPerTurn.mean, 3500);
  assert.equal(c.newTokensPerTurn.mu, Math.log(1800));
  assert.ok(Math.abs(c.newTokensPerTurn.sigma - Math.sqrt(2 * Math.log(3500 / 1800))) < 1e-12);
  assert.deepEqual(c.reset, { baseProbability: 0.02, contextScaling: 2 });
  // A manifest's generation_params is a config; a turns config drops the reset.
  const t = parseAgenticCodeConfig({ generation_params: { turns: { mean: 5, median: 4, min: 2, max: 9 } } });
  assert.equal(t.reset, null);
  assert.equal(t.turns?.maxSessionAttempts, 100);
  const bad: [unknown, RegExp][] = [
    [{ generation_length: { mean: 100, median: 200 } }, /generation_length\.mean \(100\) must be ≥ median \(200\)/],
    [{ turns: { mean: 5, median: 4, min: 2, max: 9 }, reset: {} }, /turns mode cannot be combined with reset/],
    [{ restart_turn_range: [5, 5] }, /restart_turn_range must be ordered/],
    [{ block_size: 0 }, /block_size must be ≥ 1/],
    [{ cache: { layer1_tokens: 250_000 }, turns: { mean: 5, median: 4, min: 2, max: 9 } }, /turns mode is impossible/],
  ];
  for (const [raw, pattern] of bad) assert.throws(() => parseAgenticCodeConfig(raw), pattern);
});

Deno.test("lognormal draws keep their median and stay within their bounds", () => {
  const rng = new SeededRandom(5);
  const p = { mu: Math.log(1000), sigma: 0.8, mean: 1377, median: 1000, min: 200, max: 5000 };
  const xs = Array.from({ length: 4000 }, () => sampleLognormal(p, rng));
  assert.ok(xs.every((x) => x >= 200 && x <= 5000));
  const median = percentileStats(xs).median;
  assert.ok(Math.abs(median - 1000) < 60, `median ${median}`);
});

Deno.test("prefix ids: layer 1 shared by all, layer 1.5 by a group, the rest per session and growing", () => {
  const c = parseAgenticCodeConfig({ block_size: 10, cache: { layer1_tokens: 20, layer1_5_tokens: 15 } });
  const a = new PrefixAllocator(c);
  assert.equal(a.prefixTokens, 40, "2 + 2 whole blocks");
  const t0 = a.turnHashIds(0, 3, 55);
  // 6 blocks: layer 1 [0, 1], group 3's layer 1.5 [2 + 600, 2 + 601], then session 0's own.
  assert.deepEqual(t0.slice(0, 4), [0, 1, 602, 603]);
  const own = a.sessionIds(t0);
  assert.equal(own.length, 2);
  const t1 = a.turnHashIds(0, 3, 80, own);
  assert.deepEqual(t1.slice(0, 6), t0, "a later turn keeps the ids of the context it extends");
  assert.deepEqual(t1.slice(6), [own[1] + 1, own[1] + 2]);
  assert.notDeepEqual(a.turnHashIds(1, 3, 55).slice(4), own, "another session has its own ids");
});

Deno.test("sessions grow by previous input + answer + new tokens, end by retire or reset, and repeat for a seed", () => {
  const c = parseAgenticCodeConfig({
    max_prompt_tokens: 60_000,
    restart_initial_probability: 0.5,
    cache: { layer1_tokens: 4000, layer1_5_tokens: 2000, layer2: { mean: 3000, median: 2000 } },
  });
  const s1 = new AgenticCodeSynthesizer(c, new SeededRandom(9)).synthesizeSessions(60);
  const s2 = new AgenticCodeSynthesizer(c, new SeededRandom(9)).synthesizeSessions(60);
  assert.deepEqual(s1, s2);
  assert.ok(s1.length > 60, "restart continuations are added");
  for (const s of s1) {
    for (let k = 1; k < s.turns.length; k++) {
      const [prev, t] = [s.turns[k - 1], s.turns[k]];
      assert.equal(t.inputLength, prev.inputLength + prev.outputLength + t.newTokens);
      assert.ok(t.inputLength < 60_000);
      assert.equal(t.hashIds.length, Math.ceil(t.inputLength / 512));
      assert.ok(t.outputLength >= 30);
    }
  }
  assert.ok(s1.some((s) => s.endReason === "forced_retire"));
  assert.ok(s1.some((s) => s.endReason === "restart_split"));
  const cont = s1.find((s) => s.isRestartContinuation)!;
  assert.ok(cont.turns[0].inputLength > 0);
  // The trace rows: incremental input, fresh ids after turn 0, the group on the first row.
  const rows = [...mooncakeRows(s1, 512)].map((l) => JSON.parse(l));
  assert.equal(rows.length, s1.reduce((n, s) => n + s.turns.length, 0));
  const first = rows[0];
  assert.equal(first.timestamp, 0);
  assert.equal(typeof first.group_id, "number");
  const later = rows.filter((r) => r.delay !== undefined);
  assert.ok(later.every((r) => r.hash_ids.length === Math.ceil(r.input_length / 512)));
  assert.ok(rows.some((r) => r.is_restart === true));
  const q = qualityReport(s1, c);
  assert.equal(q.session_end_stats.total_sessions, s1.length);
  assert.equal(q.observed_vs_target.initial_context.target_mean, 4000 + 2000 + 3000);
});

Deno.test("explicit turn counts: each session aims at a drawn count within [min, max]", () => {
  const c = parseAgenticCodeConfig({ turns: { mean: 6, median: 5, min: 3, max: 9 }, max_prompt_tokens: 400_000 });
  const sessions = new AgenticCodeSynthesizer(c, new SeededRandom(2)).synthesizeSessions(40);
  assert.ok(sessions.every((s) => s.turns.length >= 3 && s.turns.length <= 9 && s.endReason === "target_turn_count"));
});
