import assert from "node:assert/strict";
import { SeededRandom } from "../../src/base/seeded_random.ts";
import {
  type ChunkedSamples,
  type ChunkedStatsTrace,
  computeStatsChunked,
  errorAdjustedStatsChunked,
  orderStatisticsChunked,
} from "../../src/metrics/chunked_stats.ts";
import { errorAdjustedStats } from "../../src/metrics/error_adjusted.ts";
import {
  assembleStats,
  computeStatsInPlace,
  percentileRanks,
  type Samples,
  STAT_KEYS,
  type Stats,
} from "../../src/metrics/stats.ts";

/** Seeded uniform [0, 1). */
function rng(seed: number): () => number {
  const random = new SeededRandom(seed);
  return () => random.next();
}

type Shape = (n: number, r: () => number) => Float64Array;

/** Standard normal by Box–Muller. */
const normal = (r: () => number) => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());

/** Column shapes a benchmark produces, and the degenerate ones selection has to survive. */
const SHAPES: Record<string, Shape> = {
  uniform: (n, r) => Float64Array.from({ length: n }, () => r() * 10),
  latencies: (n, r) => Float64Array.from({ length: n }, () => Math.exp(3 + 0.8 * normal(r))),
  // float32 values (inter-chunk latencies are stored as float32).
  float32: (n, r) => Float64Array.from({ length: n }, () => Math.fround(0.001 + r() * r() * 0.5)),
  clusteredWithOutlier: (n, r) => {
    const a = Float64Array.from({ length: n }, () => 1 + r() * 1e-9);
    a[Math.floor(r() * n)] = 1e12;
    return a;
  },
  allEqual: (n) => new Float64Array(n).fill(0.125),
  twoValues: (n, r) => Float64Array.from({ length: n }, () => (r() < 0.3 ? 2 : 5)),
  tokenCounts: (n, r) => Float64Array.from({ length: n }, () => Math.floor(r() * r() * 40)),
  manyMagnitudes: (n, r) =>
    Float64Array.from({ length: n }, () => (r() < 0.5 ? -1 : 1) * (1 + r()) * 2 ** Math.floor(r() * 2000 - 1000)),
  extremes: (n, r) =>
    Float64Array.from(
      { length: n },
      () => [Number.MAX_VALUE, -Number.MAX_VALUE, 5e-324, -5e-324, 1][Math.floor(r() * 5)],
    ),
  signedZeros: (n, r) =>
    Float64Array.from({ length: n }, () => {
      const u = r();
      return u < 0.35 ? -0 : u < 0.7 ? 0 : u < 0.85 ? -r() : r();
    }),
  // ±0 as the smallest (largest) values, sharing a bucket with subnormals: a range's bounds must tell −0 from +0.
  zerosThenSubnormals: (n, r) =>
    Float64Array.from({ length: n }, () => [-0, 0, 5e-324, 1e-320, 1][Math.floor(r() * 5)]),
  subnormalsThenZeros: (n, r) =>
    Float64Array.from({ length: n }, () => [-1, -1e-320, -5e-324, -0, 0][Math.floor(r() * 5)]),
  onlyZeros: (n, r) => Float64Array.from({ length: n }, () => (r() < 0.5 ? -0 : 0)),
};

/** Cuts `values` into chunks of random lengths (some empty), each a Float32Array where that keeps it exact. */
function randomChunks(values: Float64Array, r: () => number): Samples[] {
  const chunks: Samples[] = [];
  let at = 0;
  const maxLen = 1 + Math.floor(r() * Math.min(values.length, 5000));
  while (at < values.length || r() < 0.1) {
    const len = r() < 0.1 ? 0 : Math.min(values.length - at, 1 + Math.floor(r() * maxLen));
    const part = values.subarray(at, at + len);
    const f32 = Float32Array.from(part);
    const exact = f32.every((v, i) => Object.is(v, part[i]));
    chunks.push(exact && r() < 0.5 ? f32 : part.slice());
    at += len;
  }
  return chunks;
}

/**
 * A column that hands out each chunk as a view of one reused buffer, poisoned with NaN after the callback,
 * so a reader that keeps a chunk gets garbage; it counts reads and the largest chunk handed out.
 */
class TapeColumn implements ChunkedSamples {
  readonly length: number;
  reads = 0;
  readonly #chunks: Samples[];
  readonly #f64: Float64Array;
  readonly #f32: Float32Array;

  constructor(chunks: Samples[]) {
    this.#chunks = chunks;
    this.length = chunks.reduce((s, c) => s + c.length, 0);
    const longest = chunks.reduce((m, c) => Math.max(m, c.length), 0);
    this.#f64 = new Float64Array(longest);
    this.#f32 = new Float32Array(longest);
  }

  forEachChunk(fn: (chunk: Samples) => void): void {
    this.reads++;
    for (const c of this.#chunks) {
      const view = (c instanceof Float32Array ? this.#f32 : this.#f64).subarray(0, c.length);
      view.set(c);
      fn(view);
      view.fill(NaN);
    }
  }
}

/** The fields where two Stats differ (Object.is: −0 ≠ +0, NaN = NaN). */
function differences(a: Stats | undefined, b: Stats | undefined): string[] {
  if (a === undefined || b === undefined) return a === b ? [] : ["undefined"];
  const keys = [...STAT_KEYS, "count", "sum"] as const;
  return keys.filter((k) => !Object.is(a[k], b[k])).map((k) => `${k}: ${a[k]} vs ${b[k]}`);
}

function concat(chunks: Samples[]): Float64Array {
  const out = new Float64Array(chunks.reduce((s, c) => s + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

const SIZES = [1, 2, 3, 17, 999, 1000, 1001, 2500, 20_000, 60_000];

Deno.test("chunked stats equal the in-memory stats bit for bit for every shape, size and chunking", () => {
  const r = rng(20261128);
  let compared = 0;
  for (const [name, shape] of Object.entries(SHAPES)) {
    for (const n of SIZES) {
      const values = shape(n, r);
      const chunks = randomChunks(values, r);
      const expected = computeStatsInPlace(concat(chunks));
      for (const limit of [1000, 0, 64]) {
        const column = new TapeColumn(chunks);
        const got = computeStatsChunked(column, limit);
        assert.deepEqual(differences(got, expected), [], `${name} n=${n} gatherLimit=${limit}`);
        assert.deepEqual(got, expected);
        compared++;
      }
    }
  }
  assert.equal(compared, Object.keys(SHAPES).length * SIZES.length * 3);
});

Deno.test("chunked error-adjusted stats equal errorAdjustedStats bit for bit", () => {
  const r = rng(7);
  for (const [name, shape] of Object.entries(SHAPES)) {
    for (const n of [0, 1, 2, 1000, 1001, 5000, 30_000]) {
      const chunks = randomChunks(shape(n, r), r);
      for (const failures of [0, 1, 3, Math.floor(n * 0.02) + 1, n + 5]) {
        const expected = errorAdjustedStats(concat(chunks), failures);
        for (const limit of [1000, 0]) {
          const got = errorAdjustedStatsChunked(new TapeColumn(chunks), failures, limit);
          assert.deepEqual(differences(got, expected), [], `${name} n=${n} failures=${failures} limit=${limit}`);
          assert.deepEqual(got, expected);
        }
      }
    }
  }
});

Deno.test("chunked order statistics are the values a full sort puts at each rank, zeros' signs included", () => {
  const r = rng(99);
  for (const [name, shape] of Object.entries(SHAPES)) {
    const n = 40_000;
    const chunks = randomChunks(shape(n, r), r);
    const sorted = concat(chunks).sort();
    const ranks = [...new Set(Array.from({ length: 40 }, () => Math.floor(r() * n)).concat([0, n - 1]))]
      .sort((a, b) => a - b);
    for (const limit of [0, 1000, 100_000]) {
      const got = orderStatisticsChunked(new TapeColumn(chunks), ranks, limit);
      ranks.forEach((rank, k) => assert.ok(Object.is(got[k], sorted[rank]), `${name} rank ${rank}: ${got[k]}`));
    }
  }
});

Deno.test("an answer off by one rank or one ulp would fail the comparison", () => {
  // The shapes with distinct values: the neighbouring rank holds another value, so the check above can fail.
  const r = rng(3);
  for (const name of ["uniform", "latencies", "manyMagnitudes", "signedZeros"]) {
    const n = 20_000;
    const values = SHAPES[name](n, r);
    const truth = computeStatsInPlace(values.slice())!;
    const sorted = values.slice().sort();
    const ranks = percentileRanks(n);
    const shifted = ranks.map((rank) => sorted[Math.min(rank + 1, n - 1)]);
    const offByOne = assembleStats(n, truth.min, truth.max, truth.sum, truth.std ** 2 * n, ranks, shifted);
    assert.ok(differences(offByOne, truth).filter((d) => d.startsWith("p")).length >= 5, name);
  }
  const one = computeStatsInPlace(new Float64Array([1, 2, 3]))!;
  assert.deepEqual(differences({ ...one, p50: 2 + Number.EPSILON * 2 }, one), [`p50: ${2 + Number.EPSILON * 2} vs 2`]);
  assert.deepEqual(differences({ ...one, p1: -0 }, { ...one, p1: 0 }), ["p1: 0 vs 0"]);
});

Deno.test("chunked stats hold at most gatherLimit values and read the column a few times", () => {
  const r = rng(11);
  const n = 200_000;
  const limit = 1000;
  for (const [name, shape] of Object.entries(SHAPES)) {
    const chunks = randomChunks(shape(n, r), r);
    const column = new TapeColumn(chunks);
    const trace: ChunkedStatsTrace = { passes: 0, countingPasses: 0, heldPeak: 0 };
    const got = computeStatsChunked(column, limit, trace);
    assert.deepEqual(got, computeStatsInPlace(concat(chunks)), name);
    assert.equal(trace.passes, column.reads, name);
    assert.ok(trace.heldPeak <= limit, `${name}: held ${trace.heldPeak}`);
    // Scan, ≤ 6 counting passes (64-bit keys, 12 bits a pass), or ≤ 5 and a gather.
    assert.ok(trace.passes >= 2 && trace.passes <= 7, `${name}: ${trace.passes} passes`);
    assert.ok(trace.countingPasses <= 6, `${name}: ${trace.countingPasses} counting passes`);
    if (name === "allEqual") assert.equal(trace.passes, 2); // scan; squared deviations; nothing to narrow
    if (name === "latencies") assert.ok(trace.passes <= 4, `latencies took ${trace.passes} passes`);
  }
  // Whatever the limit, the gathered ranges fit it (and some limits are reached, so the bound is tested).
  const values = SHAPES.latencies(n, r);
  const chunks = randomChunks(values, r);
  const expected = computeStatsInPlace(values.slice());
  const peaks: number[] = [];
  for (let limit = 16; limit <= 65_536; limit = Math.ceil(limit * 1.25)) {
    const trace: ChunkedStatsTrace = { passes: 0, countingPasses: 0, heldPeak: 0 };
    assert.deepEqual(computeStatsChunked(new TapeColumn(chunks), limit, trace), expected);
    assert.ok(trace.heldPeak <= limit, `limit ${limit}: held ${trace.heldPeak}`);
    peaks.push(trace.heldPeak / limit);
  }
  assert.ok(peaks.filter((p) => p > 0.5).length >= 3, `peaks/limit: ${peaks.map((p) => p.toFixed(2))}`);
});

Deno.test("with no room to gather, narrowing alone resolves every rank within six counting passes", () => {
  const r = rng(12);
  for (const [name, shape] of Object.entries(SHAPES)) {
    const chunks = randomChunks(shape(50_000, r), r);
    const trace: ChunkedStatsTrace = { passes: 0, countingPasses: 0, heldPeak: 0 };
    const got = errorAdjustedStatsChunked(new TapeColumn(chunks), 10, 0, trace);
    assert.deepEqual(got, errorAdjustedStats(concat(chunks), 10), name);
    assert.equal(trace.heldPeak, 0, name);
    assert.ok(trace.countingPasses <= 6 && trace.passes === 1 + trace.countingPasses, `${name}: ${trace.passes}`);
  }
  // Adjacent doubles over the whole range: every bit of the key matters.
  const hard = new Float64Array(30_000);
  for (let i = 0; i < hard.length; i++) {
    hard[i] = (i % 2 ? 1 : -1) * 2 ** (1023 - (i % 2098)) * (1 + (i % 7) * 2 ** -52);
  }
  const trace: ChunkedStatsTrace = { passes: 0, countingPasses: 0, heldPeak: 0 };
  const column = new TapeColumn([hard]);
  assert.deepEqual(computeStatsChunked(column, 0, trace), computeStatsInPlace(hard.slice()));
  assert.ok(trace.countingPasses <= 6, `${trace.countingPasses}`);
});

Deno.test("a column that fits the gather limit is read once", () => {
  const values = SHAPES.latencies(5000, rng(5));
  const column = new TapeColumn([values.subarray(0, 2000), values.subarray(2000)]);
  const trace: ChunkedStatsTrace = { passes: 0, countingPasses: 0, heldPeak: 0 };
  assert.deepEqual(computeStatsChunked(column, 5000, trace), computeStatsInPlace(values.slice()));
  assert.deepEqual(trace, { passes: 1, countingPasses: 0, heldPeak: 5000 });
  assert.deepEqual(errorAdjustedStatsChunked(column, 2, 5000, trace), errorAdjustedStats(values, 2));
  assert.deepEqual(trace, { passes: 1, countingPasses: 0, heldPeak: 5000 });
});

Deno.test("no samples give undefined stats and all-infinite error-adjusted stats", () => {
  const empty = new TapeColumn([new Float64Array(0), new Float32Array(0)]);
  assert.equal(computeStatsChunked(empty), undefined);
  assert.equal(computeStatsChunked(empty, 0), undefined);
  assert.deepEqual(errorAdjustedStatsChunked(empty, 4, 0), errorAdjustedStats(new Float64Array(0), 4));
});

Deno.test("chunked stats refuse non-finite values, a column that changes length, and a bad gather limit", () => {
  const bad = new TapeColumn([new Float64Array([1, 2]), new Float64Array([NaN, 3])]);
  assert.throws(() => computeStatsChunked(bad, 1), RangeError);
  assert.throws(() => computeStatsChunked(bad), RangeError);
  assert.throws(() => errorAdjustedStatsChunked(new TapeColumn([new Float64Array([Infinity, 1])]), 0, 0), RangeError);
  let reads = 0;
  const shrinking: ChunkedSamples = {
    length: 3000,
    forEachChunk(fn) {
      const size = reads++ === 0 ? 3000 : 2999;
      fn(Float64Array.from({ length: size }, (_, i) => i));
    },
  };
  assert.throws(() => computeStatsChunked(shrinking, 10), /changed/);
  const growing: ChunkedSamples = { length: 2, forEachChunk: (fn) => fn(new Float64Array([1, 2, 3])) };
  assert.throws(() => computeStatsChunked(growing), /3 values/);
  const column = new TapeColumn([new Float64Array([1, 2])]);
  for (const limit of [-1, 1.5, NaN]) assert.throws(() => computeStatsChunked(column, limit), RangeError);
  assert.throws(() => orderStatisticsChunked(column, [1, 0]), RangeError);
  assert.throws(() => orderStatisticsChunked(column, [2]), RangeError);
});
