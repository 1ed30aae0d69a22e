/**
 * The OTLP metrics model of `otlp_metrics.ts` in protobuf (`application/x-protobuf`, OTLP/HTTP's default encoding and
 * what AIPerf's exporter sends), written by hand for the few messages a metrics export needs (field numbers from
 * opentelemetry-proto's `collector/metrics/v1/metrics_service.proto`, `metrics/v1/metrics.proto`,
 * `common/v1/common.proto` and `resource/v1/resource.proto`). Repeated scalars are packed, as proto3 writes them.
 */
import type {
  OtlpAnyValue,
  OtlpExportRequest,
  OtlpHistogramPoint,
  OtlpKeyValue,
  OtlpMetric,
  OtlpNumberPoint,
} from "./otlp_metrics.ts";

const VARINT = 0;
const FIXED64 = 1;
const BYTES = 2;

/** Appends protobuf fields to a growing buffer; nested messages are written to their own writer first. */
class ProtoWriter {
  #buf: Uint8Array<ArrayBuffer> = new Uint8Array(256);
  #len = 0;

  bytes(): Uint8Array<ArrayBuffer> {
    return this.#buf.subarray(0, this.#len);
  }

  #ensure(n: number): void {
    if (this.#len + n <= this.#buf.length) return;
    const next = new Uint8Array(Math.max(this.#buf.length * 2, this.#len + n));
    next.set(this.#buf.subarray(0, this.#len));
    this.#buf = next;
  }

  #varint(value: bigint): void {
    this.#ensure(10);
    let v = BigInt.asUintN(64, value);
    while (v >= 0x80n) {
      this.#buf[this.#len++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.#buf[this.#len++] = Number(v);
  }

  #tag(field: number, wire: number): void {
    this.#varint(BigInt((field << 3) | wire));
  }

  uint(field: number, value: number | bigint): void {
    this.#tag(field, VARINT);
    this.#varint(BigInt(value));
  }

  bool(field: number, value: boolean): void {
    this.uint(field, value ? 1 : 0);
  }

  #fixed64Raw(value: bigint): void {
    this.#ensure(8);
    new DataView(this.#buf.buffer, this.#buf.byteOffset).setBigUint64(this.#len, BigInt.asUintN(64, value), true);
    this.#len += 8;
  }

  #doubleRaw(value: number): void {
    this.#ensure(8);
    new DataView(this.#buf.buffer, this.#buf.byteOffset).setFloat64(this.#len, value, true);
    this.#len += 8;
  }

  fixed64(field: number, value: bigint): void {
    this.#tag(field, FIXED64);
    this.#fixed64Raw(value);
  }

  double(field: number, value: number): void {
    this.#tag(field, FIXED64);
    this.#doubleRaw(value);
  }

  raw(field: number, data: Uint8Array): void {
    this.#tag(field, BYTES);
    this.#varint(BigInt(data.length));
    this.#ensure(data.length);
    this.#buf.set(data, this.#len);
    this.#len += data.length;
  }

  string(field: number, value: string): void {
    this.raw(field, new TextEncoder().encode(value));
  }

  message(field: number, write: (w: ProtoWriter) => void): void {
    const inner = new ProtoWriter();
    write(inner);
    this.raw(field, inner.bytes());
  }

  packedFixed64(field: number, values: readonly bigint[]): void {
    const inner = new ProtoWriter();
    for (const v of values) inner.#fixed64Raw(v);
    this.raw(field, inner.bytes());
  }

  packedDouble(field: number, values: readonly number[]): void {
    const inner = new ProtoWriter();
    for (const v of values) inner.#doubleRaw(v);
    this.raw(field, inner.bytes());
  }
}

/** `ExportMetricsServiceRequest` in protobuf. */
export function encodeExportRequest(request: OtlpExportRequest): Uint8Array<ArrayBuffer> {
  const w = new ProtoWriter();
  for (const rm of request.resourceMetrics) {
    w.message(1, (r) => {
      r.message(1, (res) => keyValues(res, 1, rm.resource.attributes));
      for (const sm of rm.scopeMetrics) {
        r.message(2, (s) => {
          s.message(1, (scope) => {
            scope.string(1, sm.scope.name);
            if (sm.scope.version !== undefined) scope.string(2, sm.scope.version);
          });
          for (const m of sm.metrics) s.message(2, (mw) => metric(mw, m));
        });
      }
    });
  }
  return w.bytes();
}

function metric(w: ProtoWriter, m: OtlpMetric): void {
  w.string(1, m.name);
  if (m.description !== "") w.string(2, m.description);
  if (m.unit !== "") w.string(3, m.unit);
  if (m.sum !== undefined) {
    const sum = m.sum;
    w.message(7, (s) => {
      for (const p of sum.dataPoints) s.message(1, (pw) => numberPoint(pw, p));
      s.uint(2, sum.aggregationTemporality);
      if (sum.isMonotonic) s.bool(3, true);
    });
  }
  if (m.histogram !== undefined) {
    const histogram = m.histogram;
    w.message(9, (h) => {
      for (const p of histogram.dataPoints) h.message(1, (pw) => histogramPoint(pw, p));
      h.uint(2, histogram.aggregationTemporality);
    });
  }
}

function numberPoint(w: ProtoWriter, p: OtlpNumberPoint): void {
  w.fixed64(2, BigInt(p.startTimeUnixNano));
  w.fixed64(3, BigInt(p.timeUnixNano));
  w.double(4, p.asDouble);
  keyValues(w, 7, p.attributes);
}

function histogramPoint(w: ProtoWriter, p: OtlpHistogramPoint): void {
  w.fixed64(2, BigInt(p.startTimeUnixNano));
  w.fixed64(3, BigInt(p.timeUnixNano));
  w.fixed64(4, BigInt(p.count));
  w.double(5, p.sum);
  w.packedFixed64(6, p.bucketCounts.map((c) => BigInt(c)));
  w.packedDouble(7, p.explicitBounds);
  keyValues(w, 9, p.attributes);
  w.double(11, p.min);
  w.double(12, p.max);
}

function keyValues(w: ProtoWriter, field: number, attributes: readonly OtlpKeyValue[]): void {
  for (const kv of attributes) {
    w.message(field, (k) => {
      k.string(1, kv.key);
      k.message(2, (v) => anyValue(v, kv.value));
    });
  }
}

function anyValue(w: ProtoWriter, v: OtlpAnyValue): void {
  if ("stringValue" in v) w.string(1, v.stringValue);
  else if ("boolValue" in v) w.bool(2, v.boolValue);
  else if ("intValue" in v) w.uint(3, BigInt(v.intValue));
  else w.double(4, v.doubleValue);
}
