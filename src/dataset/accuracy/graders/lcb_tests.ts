/**
 * LiveCodeBench's test cases from a problem's gold (the compact JSON the benchmark builds): the public cases (a JSON
 * list), then the private ones (in the dataset, base64 of zlib of a Python pickle of that JSON text — only a pickled
 * string is read, never any other pickle opcode — or a plain JSON list), and the method name of call-based problems
 * (`metadata.func_name`).
 */
import { inflateSync } from "node:zlib";
import { Buffer } from "node:buffer";

export interface LcbTests {
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly fnName: string | null;
}

interface TestCase {
  readonly input: string;
  readonly output: string;
}

/** The string a pickle (protocols 0–5) holds, when it holds only one string; throws otherwise. */
export function unpickleString(bytes: Uint8Array): string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let i = 0;
  let value: string | undefined;
  while (i < bytes.length) {
    const op = bytes[i++];
    switch (op) {
      case 0x80: // PROTO n
        i += 1;
        break;
      case 0x95: // FRAME (8-byte length)
        i += 8;
        break;
      case 0x94: // MEMOIZE
        break;
      case 0x71: // BINPUT
        i += 1;
        break;
      case 0x72: // LONG_BINPUT
        i += 4;
        break;
      case 0x70: { // PUT (text index up to a newline)
        const end = bytes.indexOf(0x0a, i);
        if (end < 0) throw new RangeError("truncated PUT");
        i = end + 1;
        break;
      }
      case 0x8c: { // SHORT_BINUNICODE
        const n = bytes[i];
        value = decoder.decode(bytes.subarray(i + 1, i + 1 + n));
        i += 1 + n;
        break;
      }
      case 0x58: { // BINUNICODE
        const n = view.getUint32(i, true);
        value = decoder.decode(bytes.subarray(i + 4, i + 4 + n));
        i += 4 + n;
        break;
      }
      case 0x8d: { // BINUNICODE8
        const n = Number(view.getBigUint64(i, true));
        value = decoder.decode(bytes.subarray(i + 8, i + 8 + n));
        i += 8 + n;
        break;
      }
      case 0x56: { // UNICODE (protocol 0, raw-unicode-escape up to a newline)
        const end = bytes.indexOf(0x0a, i);
        if (end < 0) throw new RangeError("truncated UNICODE");
        value = new TextDecoder("latin1").decode(bytes.subarray(i, end)).replace(
          /\\u([0-9a-fA-F]{4})|\\U([0-9a-fA-F]{8})/g,
          (_, a, b) => String.fromCodePoint(parseInt(a ?? b, 16)),
        );
        i = end + 1;
        break;
      }
      case 0x2e: // STOP
        if (value === undefined) throw new RangeError("the pickle holds no string");
        return value;
      default:
        throw new RangeError(`the pickle holds more than a string (opcode 0x${op.toString(16)})`);
    }
  }
  throw new RangeError("the pickle has no STOP");
}

function parseCases(raw: unknown): TestCase[] {
  if (raw === null || raw === undefined || raw === "") return [];
  const list = typeof raw === "string" ? JSON.parse(raw) : raw;
  if (!Array.isArray(list)) throw new TypeError("test cases must be a JSON list");
  return list as TestCase[];
}

function privateCases(raw: unknown): TestCase[] {
  if (raw === null || raw === undefined || raw === "") return [];
  if (Array.isArray(raw)) return raw as TestCase[];
  if (typeof raw === "string") {
    try {
      return JSON.parse(unpickleString(new Uint8Array(inflateSync(Buffer.from(raw, "base64"))))) as TestCase[];
    } catch {
      // not the encoded form: plain JSON
    }
  }
  return parseCases(raw);
}

/**
 * The test cases of a gold.
 * @throws {Error} when the gold is not such JSON or holds no test case.
 */
export function lcbTests(groundTruth: string): LcbTests {
  const payload = JSON.parse(groundTruth) as Record<string, unknown>;
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    throw new TypeError("expected a JSON object");
  }
  const cases = [...parseCases(payload.public_test_cases), ...privateCases(payload.private_test_cases)];
  if (cases.length === 0) {
    throw new RangeError("LCB payload has no test cases — both public_test_cases and private_test_cases are empty");
  }
  let fnName: string | null = null;
  const meta = typeof payload.metadata === "string" && payload.metadata !== ""
    ? JSON.parse(payload.metadata)
    : payload.metadata;
  if (typeof meta === "object" && meta !== null && typeof meta.func_name === "string") fnName = meta.func_name;
  return { inputs: cases.map((c) => c.input), outputs: cases.map((c) => c.output), fnName };
}

/** lighteval's `extract_code`: the lines between the last two lines holding ```, else nothing. */
export function extractCode(response: string): string {
  const lines = response.split("\n");
  const fences = lines.flatMap((line, i) => (line.includes("```") ? [i] : []));
  if (fences.length < 2) return "";
  return lines.slice(fences[fences.length - 2] + 1, fences[fences.length - 1]).join("\n");
}
