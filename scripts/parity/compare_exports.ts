/**
 * The comparisons of the side-by-side check, on two artifact directories (AIPerf's and infermeter's) of one
 * scenario: what AIPerf writes that infermeter lacks (CSV rows, JSON keys, console rows), multi-turn ISL against the
 * server's own `usage.prompt_tokens`, and server-metric percentile estimates against AIPerf's within one bucket
 * width. Pure functions over file texts, so tests can run them on captured files.
 */

/** CSV row labels of the metric sections (first column), in order. */
export function csvLabels(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line === "" || line.startsWith("Metric,") || line.startsWith("Endpoint,")) continue;
    out.push(line.startsWith('"') ? line.slice(1, line.indexOf('"', 1)) : line.split(",")[0]);
  }
  return out;
}

type Json = Record<string, unknown>;

/** The metric keys of `profile_export_aiperf.json` (top-level keys whose value has a `unit`). */
export function jsonMetricKeys(doc: Json): string[] {
  return Object.keys(doc).filter((k) => {
    const v = doc[k];
    return typeof v === "object" && v !== null && "unit" in (v as Json);
  });
}

/** Console tables: title (after `| `) → row labels, wrapped labels joined with a space. */
export function consoleTables(text: string): Map<string, string[]> {
  const tables = new Map<string, string[]>();
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = /(?:AIPerf|infermeter) \| (.+?)\s*$/.exec(lines[i]);
    if (!m || !lines[i + 1]?.startsWith("┏")) continue;
    const rows: string[] = [];
    let j = i + 2;
    while (j < lines.length && !lines[j].startsWith("┡")) j++;
    for (j++; j < lines.length && !lines[j].startsWith("└"); j++) {
      const cells = lines[j].split("│").slice(1, -1).map((c) => c.trim());
      if (cells.length === 0) continue;
      if (cells.slice(1).every((c) => c === "") && rows.length > 0) rows[rows.length - 1] += " " + cells[0];
      else rows.push(cells[0]);
    }
    tables.set(m[1], rows);
  }
  return tables;
}

export interface Missing {
  readonly what: string;
  /** In AIPerf's output, not in infermeter's. */
  readonly missing: readonly string[];
  /** In infermeter's output only. */
  readonly extra: readonly string[];
  /** Both have the same entries in the same order (of the entries both have). */
  readonly sameOrder: boolean;
}

export function compareLists(what: string, theirs: readonly string[], ours: readonly string[]): Missing {
  const common = theirs.filter((k) => ours.includes(k));
  const ourOrder = ours.filter((k) => theirs.includes(k));
  return {
    what,
    missing: theirs.filter((k) => !ours.includes(k)),
    extra: ours.filter((k) => !theirs.includes(k)),
    sameOrder: common.join("\u0000") === ourOrder.join("\u0000"),
  };
}

/** Every shape comparison of one scenario: CSV rows, JSON metric keys, console tables and their rows. */
export function compareShapes(
  theirs: { csv: string; json: Json; console: string },
  ours: { csv: string; json: Json; console: string },
): Missing[] {
  const out: Missing[] = [
    compareLists("CSV rows", csvLabels(theirs.csv), csvLabels(ours.csv)),
    compareLists("JSON metrics", jsonMetricKeys(theirs.json), jsonMetricKeys(ours.json)),
  ];
  const t = consoleTables(theirs.console);
  const o = consoleTables(ours.console);
  out.push(compareLists("console tables", [...t.keys()], [...o.keys()]));
  for (const [title, rows] of t) out.push(compareLists(`console "${title}"`, rows, o.get(title) ?? []));
  return out;
}

export interface JsonlRecord {
  readonly metadata: Json;
  readonly metrics: Record<string, { value: unknown }>;
}

export function readJsonlText(text: string): JsonlRecord[] {
  return text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
}

/** Per turn index: the ISLs and the server's `usage_prompt_tokens` of the same requests. */
export function islByTurn(records: readonly JsonlRecord[]): Map<number, { isl: number[]; server: number[] }> {
  const out = new Map<number, { isl: number[]; server: number[] }>();
  for (const r of records) {
    const turn = r.metadata.turn_index as number;
    const isl = r.metrics.input_sequence_length?.value;
    const server = r.metrics.usage_prompt_tokens?.value;
    if (typeof isl !== "number" || typeof server !== "number") continue;
    const entry = out.get(turn) ?? { isl: [], server: [] };
    entry.isl.push(isl);
    entry.server.push(server);
    out.set(turn, entry);
  }
  return out;
}

export interface PercentileCheck {
  readonly metric: string;
  readonly stat: string;
  readonly theirs: number;
  readonly ours?: number;
  /** Width of the wider bucket holding either estimate (the last finite bucket's for the +Inf bucket). */
  readonly bucketWidth: number;
  readonly withinOneBucket: boolean;
  /**
   * How many buckets apart the observations the percentile interpolates between lie in AIPerf's run and in
   * infermeter's (from each run's exported bucket increases): runs whose servers saw different latencies put them in
   * different buckets, whatever the estimator.
   */
  readonly rankBucketsApart?: number;
}

/**
 * The buckets (indices, ascending bounds) of the two observations a percentile interpolates between, numpy-style
 * (positions ⌊q·(n−1)⌋ and ⌈q·(n−1)⌉ of the sorted observations), from cumulative bucket increases.
 */
export function rankBuckets(buckets: Record<string, number>, q: number): readonly [number, number] | undefined {
  const sorted = Object.entries(buckets).map(([le, n]) => [le === "+Inf" ? Infinity : Number(le), n] as const)
    .sort((a, b) => a[0] - b[0]);
  const total = sorted[sorted.length - 1]?.[1] ?? 0;
  if (total <= 0) return undefined;
  const bucketOf = (k: number) => {
    const i = sorted.findIndex(([, n]) => n >= k);
    return i < 0 ? sorted.length - 1 : i;
  };
  const position = q * (total - 1);
  return [bucketOf(Math.floor(position) + 1), bucketOf(Math.ceil(position) + 1)];
}

const ESTIMATES = ["p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99"].map((p) => `${p}_estimate`);

/** The width of the bucket (by its bounds) that holds `x`: (previous bound, bound]. */
export function bucketWidthAt(x: number, bounds: readonly number[]): number {
  const finite = bounds.filter((b) => Number.isFinite(b)).sort((a, b) => a - b);
  let lower = 0;
  for (const b of finite) {
    if (x <= b) return b - lower;
    lower = b;
  }
  const n = finite.length;
  return n >= 2 ? finite[n - 1] - finite[n - 2] : (finite[0] ?? 0);
}

interface SeriesJson {
  readonly labels?: Record<string, string>;
  readonly stats: Record<string, number>;
  readonly buckets?: Record<string, number>;
}

/** Each histogram series' estimates in both `server_metrics_export.json`s, matched by metric and labels. */
export function comparePercentiles(theirs: Json, ours: Json): PercentileCheck[] {
  const out: PercentileCheck[] = [];
  const theirMetrics = (theirs.metrics ?? {}) as Record<string, { type: string; series: SeriesJson[] }>;
  const ourMetrics = (ours.metrics ?? {}) as Record<string, { type: string; series: SeriesJson[] }>;
  for (const [name, m] of Object.entries(theirMetrics)) {
    if (m.type !== "histogram") continue;
    for (const s of m.series) {
      const key = JSON.stringify(s.labels ?? {});
      const mine = ourMetrics[name]?.series.find((x) => JSON.stringify(x.labels ?? {}) === key);
      const bounds = Object.keys(s.buckets ?? {}).map((le) => le === "+Inf" ? Infinity : Number(le));
      for (const stat of ESTIMATES) {
        const t = s.stats[stat];
        if (typeof t !== "number") continue;
        const o = mine?.stats[stat];
        // One bucket: the wider of the buckets holding the two estimates (they sit in the same or adjacent ones).
        const width = Math.max(bucketWidthAt(t, bounds), typeof o === "number" ? bucketWidthAt(o, bounds) : 0);
        const q = Number(stat.slice(1, stat.indexOf("_"))) / 100;
        const a = s.buckets === undefined ? undefined : rankBuckets(s.buckets, q);
        const b = mine?.buckets === undefined ? undefined : rankBuckets(mine.buckets, q);
        out.push({
          metric: name,
          stat,
          theirs: t,
          ours: o,
          bucketWidth: width,
          withinOneBucket: typeof o === "number" && Math.abs(o - t) <= width + 1e-12,
          ...(a !== undefined && b !== undefined
            ? { rankBucketsApart: Math.max(Math.abs(a[0] - b[0]), Math.abs(a[1] - b[1])) }
            : {}),
        });
      }
    }
  }
  return out;
}
