/**
 * A strict parser of the Prometheus text exposition format 0.0.4 (what vLLM, SGLang, llama.cpp, DCGM-exporter and
 * our own `/metrics` serve): `# HELP` / `# TYPE` lines, samples `name{label="value",…} value [timestamp_ms]`,
 * escapes in help text (`\\`, `\n`) and label values (`\\`, `\"`, `\n`), `NaN`, `+Inf`, `-Inf`.
 *
 * Strict means every rule a scraper relies on is checked and broken ones are reported with their line: valid
 * names, one TYPE and one HELP per family given before its samples, a family's samples together, no duplicate
 * series, histogram buckets with an `le` label, cumulative (non-decreasing) counts, a `+Inf` bucket equal to
 * `_count`, and a final newline. Samples group into families: `x_bucket`, `x_sum`, `x_count` belong to histogram
 * (or summary) `x`, `x_total` to a counter declared as `x`; any other sample is its own family (untyped unless a
 * TYPE line said otherwise).
 */

export type MetricType = "counter" | "gauge" | "histogram" | "summary" | "untyped";

export type Labels = Readonly<Record<string, string>>;

export interface Sample {
  /** The sample's own name (`x_bucket`, `x_total`, …). */
  readonly name: string;
  readonly labels: Labels;
  readonly value: number;
  /** Milliseconds since the epoch, when the line carried one. */
  readonly timestampMs?: number;
}

/** One label set of a histogram: cumulative buckets in ascending `le`, `sum` and `count`. */
export interface HistogramSeries {
  /** Labels without `le`. */
  readonly labels: Labels;
  /** `leText`: the `le` label as written (`"1"`, `"1.0"`, `"+Inf"`), which AIPerf's exports use as the key. */
  readonly buckets: readonly { readonly le: number; readonly count: number; readonly leText?: string }[];
  readonly sum: number;
  readonly count: number;
}

export interface MetricFamily {
  /** The name in the TYPE line (or the sample name for untyped families). */
  readonly name: string;
  readonly type: MetricType;
  readonly help?: string;
  readonly samples: readonly Sample[];
  /** Set for histograms: samples grouped per label set. */
  readonly histograms?: readonly HistogramSeries[];
}

export class PrometheusParseError extends Error {
  constructor(readonly line: number, message: string) {
    super(`line ${line}: ${message}`);
    this.name = "PrometheusParseError";
  }
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES: ReadonlySet<string> = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);

interface FamilyDraft {
  name: string;
  type: MetricType;
  help?: string;
  samples: Sample[];
  /** Line of the family's first sample (0 before any). */
  firstSampleLine: number;
  typeLine: number;
  helpLine: number;
}

/** Parses a whole exposition; throws {@link PrometheusParseError} at the first broken rule. */
export function parsePrometheusText(text: string): MetricFamily[] {
  if (text.length > 0 && !text.endsWith("\n")) {
    throw new PrometheusParseError(text.split("\n").length, "the exposition must end with a newline");
  }
  const families = new Map<string, FamilyDraft>();
  const seenSeries = new Set<string>();
  const closed = new Set<string>(); // families whose samples ended (another family's samples followed)
  let current: FamilyDraft | undefined;
  const family = (name: string): FamilyDraft => {
    let f = families.get(name);
    if (f === undefined) {
      f = { name, type: "untyped", samples: [], firstSampleLine: 0, typeLine: 0, helpLine: 0 };
      families.set(name, f);
    }
    return f;
  };
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const line = lines[i].replace(/\r$/, "");
    if (line.trim() === "") continue;
    if (line.startsWith("#")) {
      const m = /^#\s*(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(line);
      if (m === null) continue; // a plain comment
      const [, kind, name, rest = ""] = m;
      if (!METRIC_NAME.test(name)) throw new PrometheusParseError(lineNo, `invalid metric name '${name}'`);
      const f = family(name);
      if (kind === "HELP") {
        if (f.helpLine !== 0) throw new PrometheusParseError(lineNo, `second HELP line for ${name}`);
        f.helpLine = lineNo;
        f.help = unescapeHelp(rest);
      } else {
        const type = rest.trim();
        if (!TYPES.has(type)) throw new PrometheusParseError(lineNo, `unknown metric type '${type}' for ${name}`);
        if (f.typeLine !== 0) throw new PrometheusParseError(lineNo, `second TYPE line for ${name}`);
        if (f.firstSampleLine !== 0) throw new PrometheusParseError(lineNo, `TYPE line for ${name} after its samples`);
        f.typeLine = lineNo;
        f.type = type as MetricType;
      }
      continue;
    }
    const sample = parseSampleLine(line, lineNo);
    const owner = ownerFamily(sample.name, families);
    const f = family(owner);
    if (f !== current) {
      if (closed.has(owner)) {
        throw new PrometheusParseError(lineNo, `samples of ${owner} are not together (it appeared earlier)`);
      }
      if (current !== undefined) closed.add(current.name);
      current = f;
    }
    const key = seriesKey(sample.name, sample.labels);
    if (seenSeries.has(key)) throw new PrometheusParseError(lineNo, `duplicate series ${key}`);
    seenSeries.add(key);
    if (f.firstSampleLine === 0) f.firstSampleLine = lineNo;
    if (f.type === "histogram" && sample.name === `${owner}_bucket` && sample.labels.le === undefined) {
      throw new PrometheusParseError(lineNo, `histogram bucket of ${owner} without an 'le' label`);
    }
    if (f.type === "counter" && sample.value < 0) {
      throw new PrometheusParseError(lineNo, `counter ${owner} is negative (${sample.value})`);
    }
    f.samples.push(sample);
  }
  const out: MetricFamily[] = [];
  for (const f of families.values()) {
    if (f.samples.length === 0) continue;
    const histograms = f.type === "histogram" ? groupHistogram(f) : undefined;
    out.push({ name: f.name, type: f.type, help: f.help, samples: f.samples, ...(histograms ? { histograms } : {}) });
  }
  return out;
}

/** The family a sample belongs to: `x` for `x_bucket|_sum|_count` when `x` is a declared histogram or summary. */
function ownerFamily(name: string, families: ReadonlyMap<string, FamilyDraft>): string {
  if (name.endsWith("_total") && !families.has(name)) {
    // OpenMetrics style: `# TYPE x counter` with samples named `x_total`.
    const base = families.get(name.slice(0, -6));
    if (base?.type === "counter") return base.name;
  }
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    if (!name.endsWith(suffix)) continue;
    const base = name.slice(0, -suffix.length);
    const f = families.get(base);
    if (f !== undefined && (f.type === "histogram" || (f.type === "summary" && suffix !== "_bucket"))) return base;
  }
  return name;
}

function parseSampleLine(line: string, lineNo: number): Sample {
  let i = 0;
  while (i < line.length && line[i] !== "{" && line[i] !== " " && line[i] !== "\t") i++;
  const name = line.slice(0, i);
  if (!METRIC_NAME.test(name)) throw new PrometheusParseError(lineNo, `invalid metric name '${name}'`);
  const labels: Record<string, string> = {};
  if (line[i] === "{") {
    i++;
    for (;;) {
      while (line[i] === " ") i++;
      if (line[i] === "}") {
        i++;
        break;
      }
      const eq = line.indexOf("=", i);
      if (eq < 0) throw new PrometheusParseError(lineNo, `label without '=' in ${name}`);
      const label = line.slice(i, eq).trim();
      if (!LABEL_NAME.test(label)) throw new PrometheusParseError(lineNo, `invalid label name '${label}' in ${name}`);
      if (label in labels) throw new PrometheusParseError(lineNo, `label ${label} given twice in ${name}`);
      i = eq + 1;
      if (line[i] !== '"') throw new PrometheusParseError(lineNo, `label ${label} of ${name}: value must be quoted`);
      i++;
      let value = "";
      for (;;) {
        if (i >= line.length) throw new PrometheusParseError(lineNo, `unterminated label value in ${name}`);
        const c = line[i++];
        if (c === '"') break;
        if (c === "\\") {
          const e = line[i++];
          if (e === "\\") value += "\\";
          else if (e === '"') value += '"';
          else if (e === "n") value += "\n";
          else throw new PrometheusParseError(lineNo, `invalid escape '\\${e ?? ""}' in a label value of ${name}`);
        } else {
          value += c;
        }
      }
      labels[label] = value;
      while (line[i] === " ") i++;
      if (line[i] === ",") {
        i++;
        continue;
      }
      if (line[i] === "}") {
        i++;
        break;
      }
      throw new PrometheusParseError(lineNo, `expected ',' or '}' after label ${label} in ${name}`);
    }
  }
  const rest = line.slice(i).trim().split(/[ \t]+/);
  if (rest.length === 0 || rest[0] === "") throw new PrometheusParseError(lineNo, `sample ${name} has no value`);
  if (rest.length > 2) throw new PrometheusParseError(lineNo, `unexpected text after the value of ${name}`);
  const value = parseValue(rest[0]);
  if (value === undefined) throw new PrometheusParseError(lineNo, `invalid value '${rest[0]}' for ${name}`);
  let timestampMs: number | undefined;
  if (rest.length === 2) {
    if (!/^-?\d+$/.test(rest[1])) throw new PrometheusParseError(lineNo, `invalid timestamp '${rest[1]}' for ${name}`);
    timestampMs = Number(rest[1]);
  }
  return { name, labels, value, ...(timestampMs === undefined ? {} : { timestampMs }) };
}

/** A sample value: a Go `ParseFloat` float, `NaN`, `+Inf`/`Inf`/`-Inf`. */
function parseValue(text: string): number | undefined {
  switch (text) {
    case "NaN":
      return NaN;
    case "+Inf":
    case "Inf":
      return Infinity;
    case "-Inf":
      return -Infinity;
  }
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return undefined;
  return Number(text);
}

function unescapeHelp(text: string): string {
  return text.replace(/\\(\\|n)/g, (_m, c: string) => c === "n" ? "\n" : "\\");
}

/** A series' identity: name and labels in sorted order. */
export function seriesKey(name: string, labels: Labels): string {
  const keys = Object.keys(labels).sort();
  return `${name}{${keys.map((k) => `${k}=${JSON.stringify(labels[k])}`).join(",")}}`;
}

function groupHistogram(f: FamilyDraft): HistogramSeries[] {
  const groups = new Map<
    string,
    {
      labels: Labels;
      buckets: { le: number; count: number; leText: string }[];
      sum?: number;
      count?: number;
      line: number;
    }
  >();
  for (const s of f.samples) {
    const { le, ...rest } = s.labels;
    const key = seriesKey("", rest);
    let g = groups.get(key);
    if (g === undefined) {
      g = { labels: rest, buckets: [], line: f.firstSampleLine };
      groups.set(key, g);
    }
    if (s.name === `${f.name}_bucket`) {
      const bound = parseValue(le!);
      if (bound === undefined || Number.isNaN(bound)) {
        throw new PrometheusParseError(f.firstSampleLine, `histogram ${f.name}: invalid le '${le}'`);
      }
      g.buckets.push({ le: bound, count: s.value, leText: le! });
    } else if (s.name === `${f.name}_sum`) g.sum = s.value;
    else if (s.name === `${f.name}_count`) g.count = s.value;
    else throw new PrometheusParseError(f.firstSampleLine, `histogram ${f.name} has a sample named ${s.name}`);
  }
  const out: HistogramSeries[] = [];
  for (const g of groups.values()) {
    g.buckets.sort((a, b) => a.le - b.le);
    const where = `histogram ${f.name}${seriesKey("", g.labels).slice(0)}`;
    for (let i = 1; i < g.buckets.length; i++) {
      if (g.buckets[i].count < g.buckets[i - 1].count) {
        throw new PrometheusParseError(g.line, `${where}: bucket counts must not decrease with le`);
      }
    }
    const inf = g.buckets[g.buckets.length - 1];
    if (inf === undefined || inf.le !== Infinity) throw new PrometheusParseError(g.line, `${where} has no +Inf bucket`);
    if (g.count === undefined || g.sum === undefined) {
      throw new PrometheusParseError(g.line, `${where} lacks its _sum or _count sample`);
    }
    if (g.count !== inf.count) {
      throw new PrometheusParseError(g.line, `${where}: _count ${g.count} differs from the +Inf bucket ${inf.count}`);
    }
    out.push({ labels: g.labels, buckets: g.buckets, sum: g.sum, count: g.count });
  }
  return out;
}
