/**
 * A protobuf reader for the OTLP metrics messages, written for the tests from the .proto field numbers (independent
 * of the encoder under test): it turns an `ExportMetricsServiceRequest` into the OTLP/JSON shape (64-bit integers as
 * decimal strings), so a receiver in a test can read either encoding the same way.
 */

type FieldKind =
  | "string"
  | "bool"
  | "int64"
  | "uint"
  | "fixed64"
  | "double"
  | "message"
  | "packedFixed64"
  | "packedDouble";

interface Field {
  readonly name: string;
  readonly kind: FieldKind;
  readonly type?: string;
  readonly repeated?: boolean;
}

const SCHEMA: Record<string, Record<number, Field>> = {
  ExportMetricsServiceRequest: {
    1: { name: "resourceMetrics", kind: "message", type: "ResourceMetrics", repeated: true },
  },
  ResourceMetrics: {
    1: { name: "resource", kind: "message", type: "Resource" },
    2: { name: "scopeMetrics", kind: "message", type: "ScopeMetrics", repeated: true },
  },
  Resource: { 1: { name: "attributes", kind: "message", type: "KeyValue", repeated: true } },
  ScopeMetrics: {
    1: { name: "scope", kind: "message", type: "Scope" },
    2: { name: "metrics", kind: "message", type: "Metric", repeated: true },
  },
  Scope: { 1: { name: "name", kind: "string" }, 2: { name: "version", kind: "string" } },
  Metric: {
    1: { name: "name", kind: "string" },
    2: { name: "description", kind: "string" },
    3: { name: "unit", kind: "string" },
    7: { name: "sum", kind: "message", type: "Sum" },
    9: { name: "histogram", kind: "message", type: "Histogram" },
  },
  Sum: {
    1: { name: "dataPoints", kind: "message", type: "NumberDataPoint", repeated: true },
    2: { name: "aggregationTemporality", kind: "uint" },
    3: { name: "isMonotonic", kind: "bool" },
  },
  Histogram: {
    1: { name: "dataPoints", kind: "message", type: "HistogramDataPoint", repeated: true },
    2: { name: "aggregationTemporality", kind: "uint" },
  },
  NumberDataPoint: {
    7: { name: "attributes", kind: "message", type: "KeyValue", repeated: true },
    2: { name: "startTimeUnixNano", kind: "fixed64" },
    3: { name: "timeUnixNano", kind: "fixed64" },
    4: { name: "asDouble", kind: "double" },
  },
  HistogramDataPoint: {
    9: { name: "attributes", kind: "message", type: "KeyValue", repeated: true },
    2: { name: "startTimeUnixNano", kind: "fixed64" },
    3: { name: "timeUnixNano", kind: "fixed64" },
    4: { name: "count", kind: "fixed64" },
    5: { name: "sum", kind: "double" },
    6: { name: "bucketCounts", kind: "packedFixed64" },
    7: { name: "explicitBounds", kind: "packedDouble" },
    11: { name: "min", kind: "double" },
    12: { name: "max", kind: "double" },
  },
  KeyValue: { 1: { name: "key", kind: "string" }, 2: { name: "value", kind: "message", type: "AnyValue" } },
  AnyValue: {
    1: { name: "stringValue", kind: "string" },
    2: { name: "boolValue", kind: "bool" },
    3: { name: "intValue", kind: "int64" },
    4: { name: "doubleValue", kind: "double" },
  },
};

class Reader {
  pos = 0;
  constructor(readonly buf: Uint8Array) {}
  get done(): boolean {
    return this.pos >= this.buf.length;
  }
  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const b = this.buf[this.pos++];
      if (b === undefined) throw new Error("truncated varint");
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
  }
  take(n: number): Uint8Array {
    if (this.pos + n > this.buf.length) throw new Error("truncated field");
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Decodes `bytes` as message `type` into OTLP/JSON's shape; throws on an unknown field or a wrong wire type. */
export function decodeMessage(bytes: Uint8Array, type = "ExportMetricsServiceRequest"): Record<string, unknown> {
  const schema = SCHEMA[type];
  const out: Record<string, unknown> = {};
  const r = new Reader(bytes);
  while (!r.done) {
    const tag = Number(r.varint());
    const number = tag >> 3;
    const wire = tag & 7;
    const field = schema[number];
    if (field === undefined) throw new Error(`${type}: unknown field ${number}`);
    let value: unknown;
    const expectWire = field.kind === "fixed64" || field.kind === "double"
      ? 1
      : field.kind === "bool" || field.kind === "int64" || field.kind === "uint"
      ? 0
      : 2;
    if (wire !== expectWire) throw new Error(`${type}.${field.name}: wire type ${wire}, expected ${expectWire}`);
    switch (field.kind) {
      case "string":
        value = new TextDecoder().decode(r.take(Number(r.varint())));
        break;
      case "bool":
        value = r.varint() !== 0n;
        break;
      case "int64":
        value = BigInt.asIntN(64, r.varint()).toString();
        break;
      case "uint":
        value = Number(r.varint());
        break;
      case "fixed64":
        value = view(r.take(8)).getBigUint64(0, true).toString();
        break;
      case "double":
        value = view(r.take(8)).getFloat64(0, true);
        break;
      case "message":
        value = decodeMessage(r.take(Number(r.varint())), field.type!);
        break;
      case "packedFixed64":
      case "packedDouble": {
        const data = view(r.take(Number(r.varint())));
        const items: unknown[] = [];
        for (let i = 0; i < data.byteLength; i += 8) {
          items.push(field.kind === "packedDouble" ? data.getFloat64(i, true) : data.getBigUint64(i, true).toString());
        }
        value = items;
        break;
      }
    }
    if (field.repeated) ((out[field.name] ??= []) as unknown[]).push(value);
    else out[field.name] = value;
  }
  return out;
}
