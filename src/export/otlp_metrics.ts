/**
 * OpenTelemetry metrics as the OTLP wire carries them, without an SDK: histograms (explicit buckets), counters and
 * up-down counters, each point keyed by its attribute set and aggregated cumulatively (the SDKs' default temporality,
 * which AIPerf's exporter uses), then written as an `ExportMetricsServiceRequest` in OTLP/JSON
 * (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding: 64-bit integers as decimal strings, enums as
 * numbers, lowerCamelCase keys). `otlp_protobuf.ts` writes the same model in protobuf.
 */

/** An attribute value; whole numbers are sent as `intValue`, others as `doubleValue`. */
export type AttributeValue = string | number | boolean;
export type Attributes = Readonly<Record<string, AttributeValue>>;

export type OtlpAnyValue =
  | { readonly stringValue: string }
  | { readonly boolValue: boolean }
  | { readonly intValue: string }
  | { readonly doubleValue: number };

export interface OtlpKeyValue {
  readonly key: string;
  readonly value: OtlpAnyValue;
}

export interface OtlpNumberPoint {
  readonly attributes: readonly OtlpKeyValue[];
  readonly startTimeUnixNano: string;
  readonly timeUnixNano: string;
  readonly asDouble: number;
}

export interface OtlpHistogramPoint {
  readonly attributes: readonly OtlpKeyValue[];
  readonly startTimeUnixNano: string;
  readonly timeUnixNano: string;
  readonly count: string;
  readonly sum: number;
  readonly bucketCounts: readonly string[];
  readonly explicitBounds: readonly number[];
  readonly min: number;
  readonly max: number;
}

/** `AGGREGATION_TEMPORALITY_CUMULATIVE`. */
export const CUMULATIVE = 2;

export interface OtlpMetric {
  readonly name: string;
  readonly description: string;
  readonly unit: string;
  readonly sum?: {
    readonly dataPoints: readonly OtlpNumberPoint[];
    readonly aggregationTemporality: number;
    readonly isMonotonic: boolean;
  };
  readonly histogram?: { readonly dataPoints: readonly OtlpHistogramPoint[]; readonly aggregationTemporality: number };
}

export interface OtlpExportRequest {
  readonly resourceMetrics: ReadonlyArray<{
    readonly resource: { readonly attributes: readonly OtlpKeyValue[] };
    readonly scopeMetrics: ReadonlyArray<{
      readonly scope: { readonly name: string; readonly version?: string };
      readonly metrics: readonly OtlpMetric[];
    }>;
  }>;
}

export function otlpAttributes(attributes: Attributes): OtlpKeyValue[] {
  return Object.entries(attributes).map(([key, v]) => ({ key, value: anyValue(v) }));
}

function anyValue(v: AttributeValue): OtlpAnyValue {
  if (typeof v === "string") return { stringValue: v };
  if (typeof v === "boolean") return { boolValue: v };
  return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
}

/** Epoch ms (µs resolution) → epoch ns as a decimal string. */
export function epochNanos(epochMs: number): string {
  const wholeMs = Math.floor(epochMs);
  const restNs = Math.round((epochMs - wholeMs) * 1e3) * 1e3; // µs: the clocks' resolution
  return (BigInt(wholeMs) * 1_000_000n + BigInt(restNs)).toString();
}

/** Attributes with their identity computed once, for points recorded often with the same set. */
export class AttributeSet {
  readonly attrs: Attributes;
  readonly key: string;

  constructor(attrs: Attributes) {
    this.attrs = attrs;
    this.key = JSON.stringify(Object.entries(attrs).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }
}

function setOf(attrs: Attributes | AttributeSet): AttributeSet {
  return attrs instanceof AttributeSet ? attrs : new AttributeSet(attrs);
}

type Kind = "histogram" | "counter" | "upDown";

interface Instrument {
  readonly kind: Kind;
  readonly name: string;
  readonly unit: string;
  readonly description: string;
  readonly bounds: readonly number[];
  readonly points: Map<string, Point>;
}

interface Point {
  readonly attributes: readonly OtlpKeyValue[];
  readonly startMs: number;
  count: number;
  sum: number;
  min: number;
  max: number;
  readonly buckets: number[];
}

/**
 * The instruments of one meter and their cumulative points. Recording is a map lookup and a few additions (a
 * record's values are recorded off the engine's hot path); `collect` builds the wire model of everything so far.
 */
export class MeterState {
  readonly #instruments = new Map<string, Instrument>();
  readonly #now: () => number;

  /** @param now epoch ms, for the points' start times */
  constructor(now: () => number = () => performance.timeOrigin + performance.now()) {
    this.#now = now;
  }

  /** Records one value; the instrument is created with `unit`, `description` and `bounds` on first use. */
  record(
    name: string,
    unit: string,
    description: string,
    bounds: readonly number[],
    value: number,
    attrs: Attributes | AttributeSet,
  ) {
    const point = this.#point("histogram", name, unit, description, bounds, attrs);
    point.count++;
    point.sum += value;
    if (value < point.min) point.min = value;
    if (value > point.max) point.max = value;
    point.buckets[bucketIndex(bounds, value)]++;
  }

  /** Adds to a monotonic counter (`delta` ≥ 0) or an up-down counter. */
  add(
    kind: "counter" | "upDown",
    name: string,
    unit: string,
    description: string,
    delta: number,
    attrs: Attributes | AttributeSet,
  ) {
    this.#point(kind, name, unit, description, [], attrs).sum += delta;
  }

  /** The current value of a counter's point (0 before any add). */
  value(name: string, attrs: Attributes | AttributeSet): number {
    return this.#instruments.get(name)?.points.get(setOf(attrs).key)?.sum ?? 0;
  }

  get empty(): boolean {
    return this.#instruments.size === 0;
  }

  /** Every instrument with its points at `atMs` (epoch ms), in creation order. */
  collect(atMs: number): OtlpMetric[] {
    const time = epochNanos(atMs);
    return [...this.#instruments.values()].map((inst): OtlpMetric => {
      const base = { name: inst.name, description: inst.description, unit: inst.unit };
      const points = [...inst.points.values()];
      if (inst.kind === "histogram") {
        return {
          ...base,
          histogram: {
            dataPoints: points.map((p) => ({
              attributes: p.attributes,
              startTimeUnixNano: epochNanos(p.startMs),
              timeUnixNano: time,
              count: String(p.count),
              sum: p.sum,
              bucketCounts: p.buckets.map(String),
              explicitBounds: inst.bounds,
              min: p.min,
              max: p.max,
            })),
            aggregationTemporality: CUMULATIVE,
          },
        };
      }
      return {
        ...base,
        sum: {
          dataPoints: points.map((p) => ({
            attributes: p.attributes,
            startTimeUnixNano: epochNanos(p.startMs),
            timeUnixNano: time,
            asDouble: p.sum,
          })),
          aggregationTemporality: CUMULATIVE,
          isMonotonic: inst.kind === "counter",
        },
      };
    });
  }

  #point(
    kind: Kind,
    name: string,
    unit: string,
    description: string,
    bounds: readonly number[],
    attributes: Attributes | AttributeSet,
  ) {
    let inst = this.#instruments.get(name);
    if (inst === undefined) {
      inst = { kind, name, unit, description, bounds, points: new Map() };
      this.#instruments.set(name, inst);
    }
    const set = setOf(attributes);
    let point = inst.points.get(set.key);
    if (point === undefined) {
      point = {
        attributes: otlpAttributes(set.attrs),
        startMs: this.#now(),
        count: 0,
        sum: 0,
        min: Infinity,
        max: -Infinity,
        buckets: kind === "histogram" ? new Array(inst.bounds.length + 1).fill(0) : [],
      };
      inst.points.set(set.key, point);
    }
    return point;
  }
}

/** The bucket of `value`: bucket i holds (bounds[i-1], bounds[i]], the last one everything above. */
export function bucketIndex(bounds: readonly number[], value: number): number {
  let lo = 0;
  let hi = bounds.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (value <= bounds[mid]) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** One `ExportMetricsServiceRequest`: one resource, one scope. */
export function exportRequest(
  resource: Attributes,
  scope: string,
  metrics: readonly OtlpMetric[],
): OtlpExportRequest {
  return {
    resourceMetrics: [{
      resource: { attributes: otlpAttributes(resource) },
      scopeMetrics: [{ scope: { name: scope }, metrics }],
    }],
  };
}

/**
 * The OTLP/HTTP metrics endpoint of `--otel-url`, as AIPerf reads it: `http://` added to a bare `host:port`, and
 * `/v1/metrics` appended unless the path already ends with it. Throws with the reason for anything else.
 */
export function otlpMetricsUrl(raw: string): string {
  const text = raw.trim();
  if (text === "") throw new Error("it is empty");
  let url: URL;
  try {
    url = new URL(text.includes("://") ? text : `http://${text}`);
  } catch {
    throw new Error("expected host[:port] or a full http(s) URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`only http and https are supported (got ${url.protocol.slice(0, -1)}); OTLP/gRPC is not`);
  }
  if (url.hostname === "") throw new Error("expected host[:port] or a full http(s) URL");
  const path = url.pathname.replace(/\/+$/, "");
  url.pathname = path.endsWith("/v1/metrics") ? path : `${path}/v1/metrics`;
  return url.toString();
}
