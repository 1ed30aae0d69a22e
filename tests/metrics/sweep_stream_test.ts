import assert from "node:assert/strict";
import { EventList, weightedStats } from "../../src/metrics/sweep_line.ts";
import {
  BufferPool,
  mergedSource,
  type Scratch,
  type ScratchFactory,
  type SegmentSource,
  sortByFirstEvent,
  streamedStats,
} from "../../src/metrics/sweep_stream.ts";
import { ColumnSpill } from "../../src/metrics/column_spill.ts";
import {
  sweepCurves,
  sweepMetricStats,
  type SweepRequest,
  sweepStatsByGroup,
  sweepTable,
} from "../../src/metrics/sweep_line_metrics.ts";

function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** Every statistic's exact bits (so that -0 and 0, or two NaNs, are told apart as `Object.is` would). */
function bits(s: object): string {
  return JSON.stringify(Object.entries(s).map(([k, v]) => [k, Object.is(v, -0) ? "-0" : String(v)]));
}

/** Scratches kept in memory (each append copied), counting how many were opened and closed. */
function memoryScratch(refuseEvery = 0): ScratchFactory & { opened: number; closed: number; appended: number } {
  const factory = Object.assign((): Scratch => {
    factory.opened++;
    const blocks: Uint8Array[] = [];
    let calls = 0;
    return {
      append: (bytes) => {
        if (refuseEvery > 0 && ++calls % refuseEvery === 0) return undefined;
        factory.appended++;
        return blocks.push(bytes.slice()) - 1;
      },
      read: (offset, into) => into.set(blocks[offset]),
      close: () => factory.closed++,
    };
  }, { opened: 0, closed: 0, appended: 0 });
  return factory;
}

const SHAPES: Record<string, (r: () => number) => number> = {
  // continuous rates, all distinct
  continuous: (r) => 50 + r() * 30,
  // a few integers held in long runs (concurrency-like), many ties
  integers: (r) => Math.floor(r() * 6),
  // zeros of both signs among negative and positive values spanning many magnitudes
  mixed: (r) => (r() < 0.2 ? (r() < 0.5 ? -0 : 0) : (r() < 0.5 ? -1 : 1) * 10 ** (r() * 12 - 6)),
  // one value almost everywhere: a single bucket larger than any budget
  constant: (r) => (r() < 0.95 ? 7 : r()),
};

Deno.test("streamed statistics equal the whole-array ones bit for bit, whatever the budget and value shape", () => {
  for (const [name, shape] of Object.entries(SHAPES)) {
    for (const seed of [1, 2, 3]) {
      const r = rng(seed * 7919 + name.length);
      const n = 1 + Math.floor(r() * 1500);
      const val = Float64Array.from({ length: n }, () => shape(r));
      // durations over 12 orders of magnitude: the value-ordered and time-ordered totals round differently
      const dur = Float64Array.from({ length: n }, () => 10 ** (r() * 12 - 6));
      const source: SegmentSource = (emit) => {
        for (let i = 0; i < n; i++) emit(val[i], dur[i]);
      };
      let held = 0;
      for (let i = 0; i < n; i++) held += dur[i];
      for (const total of [held * 1.5, undefined]) {
        const want = weightedStats(val, dur, n, total ?? held);
        for (const budget of [1, 5, 64, 1000, 1 << 21]) {
          const got = streamedStats(source, total, budget);
          assert.equal(bits(got), bits(want), `${name} seed ${seed} n ${n} budget ${budget} total ${total}`);
          // told the count up front: straight to the histogram past the budget
          const told = streamedStats(source, total, budget, n);
          assert.equal(bits(told), bits(want), `${name} seed ${seed} n ${n} budget ${budget} told`);
          // the value ranges set aside by one read, instead of read one at a time
          const scratch = memoryScratch();
          const aside = streamedStats(source, total, budget, n, undefined, scratch);
          assert.equal(bits(aside), bits(want), `${name} seed ${seed} n ${n} budget ${budget} set aside`);
          assert.equal(scratch.closed, scratch.opened);
          // a scratch that refuses some blocks (a full disk): those stay in memory, and nothing changes
          const flaky = memoryScratch(3);
          const kept = streamedStats(source, total, budget, n, undefined, flaky);
          assert.equal(bits(kept), bits(want), `${name} seed ${seed} n ${n} budget ${budget} some blocks refused`);
        }
      }
    }
  }
});

Deno.test("streamed percentiles add the durations in the same order, where rounding decides the percentile", () => {
  // Durations whose sums depend on their order (ulps of 2^52 against 1, thirds, tenths) and few values (ties):
  // a percentile then sits on a boundary that only the same order of additions reproduces.
  const durs = [1, 2 ** -30, 2 ** 30, 2 ** 52, 0.1, 1 / 3, 3];
  const r = rng(2024);
  let differing = 0;
  for (let trial = 0; trial < 4000; trial++) {
    const n = 4 + Math.floor(r() * 24);
    const val = Float64Array.from({ length: n }, () => Math.floor(r() * 4));
    const dur = Float64Array.from({ length: n }, () => durs[Math.floor(r() * durs.length)]);
    const source: SegmentSource = (emit) => {
      for (let i = 0; i < n; i++) emit(val[i], dur[i]);
    };
    const want = weightedStats(val, dur, n, 5 * 2 ** 52);
    // the time-ordered total against the value-ordered one
    let held = 0;
    for (let i = 0; i < n; i++) held += dur[i];
    const byValue = [...dur.keys()].sort((a, b) => val[a] - val[b] || a - b).reduce((s, i) => s + dur[i], 0);
    if (held !== byValue) differing++;
    for (const budget of [1, 3]) {
      assert.equal(bits(streamedStats(source, 5 * 2 ** 52, budget)), bits(want), `trial ${trial} budget ${budget}`);
      const aside = streamedStats(source, 5 * 2 ** 52, budget, 0, undefined, memoryScratch());
      assert.equal(bits(aside), bits(want), `trial ${trial} budget ${budget} set aside`);
    }
  }
  // the cases are the ones meant: most totals depend on the order
  assert.ok(differing > 1000, `${differing} of 4000 totals differ by order`);
});

Deno.test("streamed statistics read the segments at most twice plus twice per budget's worth", () => {
  const r = rng(99);
  const n = 10_000;
  const val = Float64Array.from({ length: n }, () => r() * 100);
  let reads = 0;
  const source: SegmentSource = (emit) => {
    reads++;
    for (let i = 0; i < n; i++) emit(val[i], 1);
  };
  for (const budget of [100, 1000, 20_000]) {
    reads = 0;
    streamedStats(source, undefined, budget);
    // within the budget: one read; past it, one read, then value ranges each holding at most the budget, two
    // consecutive ones together more than it
    const most = n <= budget ? 1 : 1 + 2 * Math.ceil(n / budget);
    assert.ok(reads <= most, `budget ${budget}: ${reads} reads, at most ${most}`);
    if (n > budget) assert.ok(reads >= 2, `budget ${budget}: ${reads} reads`);
    // With a scratch, the many ranges are set aside by one read: two reads, whatever the number of ranges.
    const want = streamedStats(source, undefined, budget);
    // ranges of up to 20,000 segments: set aside in many blocks, some of them refused and kept in memory
    assert.equal(bits(streamedStats(source, undefined, budget, 0, undefined, memoryScratch(4))), bits(want));
    reads = 0;
    const scratch = memoryScratch();
    assert.equal(bits(streamedStats(source, undefined, budget, 0, undefined, scratch)), bits(want));
    if (budget === 1000) assert.ok(scratch.appended > 0, "no block was set aside");
    if (n > 4 * budget) {
      assert.equal(reads, 2, `budget ${budget} with a scratch: ${reads} reads`);
      assert.equal(scratch.opened, 1);
    } else assert.equal(scratch.opened, 0, `budget ${budget}: few ranges are read again, not set aside`);
    assert.equal(scratch.closed, scratch.opened);
  }
});

/** Seeded streamed requests over `streams` concurrent streams, some failed, some gaps zero, some not streamed. */
function requests(seed: number, count: number, streams: number, chunked: boolean): SweepRequest[] {
  const r = rng(seed);
  const next = Float64Array.from({ length: streams }, () => r() * 20);
  const out: SweepRequest[] = [];
  for (let i = 0; i < count; i++) {
    const s = i % streams;
    const start = next[s] + r() * 2;
    const failed = r() < 0.05;
    const gen = failed ? NaN : start + 1 + r() * 10;
    const gaps = chunked && !failed && r() < 0.9
      ? Array.from({ length: Math.floor(r() * 25) }, () => (r() < 0.1 ? 0 : Math.fround(r() * 4)))
      : [];
    // ends at the last chunk, before it or after it
    const end = (failed ? start + r() * 3 : gen + gaps.reduce((a, b) => a + b, 0)) + (r() - 0.2) * 0.5;
    next[s] = end;
    out.push({
      start,
      gen,
      end,
      isl: Math.floor(1 + r() * 500),
      osl: failed ? NaN : gaps.length + 1 + (r() < 0.1 ? 3 : 0),
      icl: gaps,
    });
  }
  // records arrive in end order, not start order
  return out.sort((a, b) => a.end - b.end);
}

Deno.test("every time-weighted metric, streamed with small budgets, is the whole-curve computation bit for bit", () => {
  for (
    const [seed, count, streams, chunked] of [
      [11, 600, 32, true],
      [12, 300, 5, true],
      [13, 400, 16, false],
      [14, 50, 64, true],
    ] as const
  ) {
    const reqs = requests(seed, count, streams, chunked);
    const curves = sweepCurves(reqs);
    const t = curves.concurrency.times;
    for (const window of [undefined, { start: t[0] + 7.5, end: t[t.length - 1] - 3.25 }]) {
      const want = sweepMetricStats(curves, window?.start ?? t[0], window?.end ?? t[t.length - 1]);
      for (const budget of [29, 1 << 21]) {
        const got = sweepStatsByGroup(sweepTable(reqs), window, budget);
        for (const [tag, stats] of want) {
          assert.equal(bits(got.get(tag)!), bits(stats), `seed ${seed} budget ${budget} ${tag}`);
        }
      }
      // The value ranges set aside in a real file (written as they come, read back, removed).
      const dir = Deno.makeTempDirSync();
      let files = 0, written = 0;
      const fileScratch: ScratchFactory = () => {
        const spill = ColumnSpill.open(`${dir}/scratch-${files++}`, { sync: true });
        return {
          append: (bytes) => spill.append(bytes),
          read: (offset, into) => spill.readAt(offset, into),
          close: () => {
            written += spill.written;
            spill.closeSync();
          },
        };
      };
      for (const budget of [29, 1500]) {
        const aside = sweepStatsByGroup(sweepTable(reqs), window, budget, fileScratch);
        for (const [tag, stats] of want) {
          assert.equal(bits(aside.get(tag)!), bits(stats), `seed ${seed} budget ${budget} set aside ${tag}`);
        }
      }
      // The chunk gaps' origins set aside too, 7 in memory at most (read back by pages, not in the order written).
      const opened = files;
      const origins = sweepStatsByGroup(sweepTable(reqs), window, 1500, fileScratch, 7);
      for (const [tag, stats] of want) {
        assert.equal(bits(origins.get(tag)!), bits(stats), `seed ${seed} origins set aside ${tag}`);
      }
      if (chunked) assert.ok(files > opened, `seed ${seed}: the origins were not set aside`);
      // Whole-number gaps: origins held as 4-byte integers, read back as such.
      if (chunked) {
        const whole = reqs.map((q) => ({ ...q, icl: q.icl.map(Math.round) }));
        const wholeCurves = sweepCurves(whole);
        const wantWhole = sweepMetricStats(wholeCurves, window?.start ?? t[0], window?.end ?? t[t.length - 1]);
        const gotWhole = sweepStatsByGroup(sweepTable(whole), window, 1500, fileScratch, 7);
        for (const [tag, stats] of wantWhole) {
          assert.equal(bits(gotWhole.get(tag)!), bits(stats), `seed ${seed} whole-number origins set aside ${tag}`);
        }
      }
      if (count >= 300) assert.ok(files > 0, `seed ${seed}: nothing was set aside`);
      if (count >= 600) assert.ok(written > 0, `seed ${seed}: no block reached the file`);
      assert.deepEqual([...Deno.readDirSync(dir)], [], "a scratch file was left behind");
      Deno.removeSync(dir);
    }
  }
});

Deno.test("a merged curve is the built event list's steps, holding only the requests in flight at once", () => {
  // 200 requests, 4 at a time, each adding overlapping events out of time order
  const r = rng(5);
  const events: [number, number][][] = Array.from({ length: 200 }, (_, i) => {
    const base = Math.floor(i / 4) * 10;
    return Array.from({ length: 6 }, () => [base + Math.floor(r() * 12), Math.floor(r() * 5) - 2] as [number, number]);
  });
  const list = new EventList();
  for (const req of events) for (const [t, d] of req) list.add(t, d);
  const want = list.build();
  const source = mergedSource(events.length, (i, out) => {
    for (const [t, d] of events[i]) out.add(t, d);
  });
  const cursor = source.open();
  const times: number[] = [], values: number[] = [];
  while (cursor.next()) {
    times.push(cursor.t);
    values.push(cursor.v);
  }
  assert.deepEqual(times, [...want.times]);
  assert.deepEqual(values.map(String), [...want.values].map(String));
  // a request's events span at most 12 ms and a new group of 4 starts every 10 ms: at most 8 are merged at once
  assert.ok(cursor.peakMerging <= 8, `${cursor.peakMerging} requests merged at once`);
  assert.ok(cursor.peakMerging >= 4);
});

/** A pool that notes the largest value-range buffer a statistic asked it for. */
class WatchedPool extends BufferPool {
  largest = 0;
  override float64(n: number): Float64Array {
    this.largest = Math.max(this.largest, n);
    return super.float64(n);
  }
}

Deno.test("a value range set aside holding more than the budget is walked a budget at a time, same statistics", () => {
  // Buckets (a value's leading bits) far larger than the budget: one value held in long runs (concurrency-like),
  // values differing only in low mantissa bits (a rate that barely moves: split past the first 16 bits), and a few
  // magnitudes so that there are many ranges to set aside.
  const r = rng(31);
  const n = 6000;
  const val = Float64Array.from({ length: n }, () => {
    const k = r();
    if (k < 0.3) return 7;
    if (k < 0.6) return 1000 + r() * 1e-9;
    if (k < 0.7) return r() < 0.5 ? -0 : 0;
    return 10 ** Math.floor(r() * 8) * (1 + r());
  });
  const dur = Float64Array.from({ length: n }, () => 10 ** (r() * 9 - 3));
  const source: SegmentSource = (emit) => {
    for (let i = 0; i < n; i++) emit(val[i], dur[i]);
  };
  let held = 0;
  for (let i = 0; i < n; i++) held += dur[i];
  for (const total of [held * 1.25, undefined]) {
    const want = weightedStats(val, dur, n, total ?? held);
    for (const budget of [16, 100, 700]) {
      const pool = new WatchedPool(), scratch = memoryScratch();
      const got = streamedStats(source, total, budget, n, pool, scratch);
      assert.equal(bits(got), bits(want), `budget ${budget} total ${total}`);
      assert.equal(scratch.opened, 1, "the ranges were not set aside");
      // 1,800 segments of 7 and 1,800 near 1000 each share a bucket: never gathered whole
      assert.ok(pool.largest <= budget, `budget ${budget}: a buffer of ${pool.largest} segments`);
      const flaky = streamedStats(source, total, budget, n, new WatchedPool(), memoryScratch(5));
      assert.equal(bits(flaky), bits(want), `budget ${budget} total ${total}, some blocks refused`);
    }
  }
  // Few ranges, one of them a bucket far past the budget (a concurrency held at one value): set aside all the same.
  const steady = Float64Array.from({ length: n }, (_, i) => (i % 50 === 0 ? 255 : 256));
  const want = weightedStats(steady, dur, n, held);
  const pool = new WatchedPool(), scratch = memoryScratch();
  const got = streamedStats((emit) => steady.forEach((v, i) => emit(v, dur[i])), held, 64, n, pool, scratch);
  assert.equal(bits(got), bits(want));
  assert.equal(scratch.opened, 1, "a bucket past the budget was not set aside");
  assert.ok(pool.largest <= 64, `a buffer of ${pool.largest} segments`);
});

Deno.test("requests sorted by their first event: time, ends before starts, then index, as a comparator sort gives", () => {
  const r = rng(77);
  for (const n of [0, 1, 31, 32, 33, 100, 1000, 5000]) {
    // nearly in order with ties of time and kind, and some far out of place
    const firstT = Float64Array.from(
      { length: n },
      (_, i) => (r() < 0.05 ? Math.floor(r() * n) : i + Math.floor(r() * 40)) / 4,
    );
    const firstStart = Uint8Array.from({ length: n }, () => (r() < 0.5 ? 1 : 0));
    const want = Uint32Array.from({ length: n }, (_, i) => i)
      .sort((a, b) => firstT[a] - firstT[b] || firstStart[a] - firstStart[b] || a - b);
    const got = Uint32Array.from({ length: n }, (_, i) => i);
    sortByFirstEvent(got, firstT, firstStart);
    assert.deepEqual([...got], [...want], `n ${n}`);
  }
});

Deno.test("a merged curve's order found through a small window, or sorted whole where requests stray, is the same", () => {
  const r = rng(8);
  // 300 requests of 5 events each; in index order nearly by time, then shuffled far out of it
  const near: [number, number][][] = Array.from({ length: 300 }, (_, i) => {
    const base = i * 3 + Math.floor(r() * 20);
    return Array.from({ length: 5 }, () => [base + Math.floor(r() * 15), Math.floor(r() * 5) - 2] as [number, number]);
  });
  const far = [...near].sort(() => r() - 0.5);
  for (const events of [near, far]) {
    const list = new EventList();
    for (const req of events) for (const [t, d] of req) list.add(t, d);
    const want = list.build();
    for (const window of [1, 2, 7, 1 << 14]) {
      const source = mergedSource(events.length, (i, out) => {
        for (const [t, d] of events[i]) out.add(t, d);
      }, window);
      const cursor = source.open();
      const times: number[] = [], values: string[] = [];
      while (cursor.next()) {
        times.push(cursor.t);
        values.push(String(cursor.v));
      }
      assert.deepEqual(times, [...want.times], `window ${window}`);
      assert.deepEqual(values, [...want.values].map(String), `window ${window}`);
    }
  }
});
