import assert from "node:assert/strict";
import { decodeRecord, encodeRecord, RecordCodecError } from "../../src/records/record_codec.ts";
import type { RequestRecord } from "../../src/records/request_record.ts";

/** Every field set, with doubles that have no short decimal form. */
const FULL: RequestRecord = {
  phase: "profiling",
  requestIndex: 41,
  sessionNum: 7,
  conversationId: "session_000041",
  turnIndex: 2,
  isFinalTurn: true,
  xRequestId: "r-1",
  xCorrelationId: "c-1",
  workerId: "worker_3",
  lineage: { agentDepth: 2, parentCorrelationId: "c-0", rootCorrelationId: "c-root" },
  creditIssuedAt: 0.1 + 0.2,
  scheduledAt: 1234.567890123,
  timestampScheduled: false,
  startAt: Math.PI * 1000,
  sentAt: 3141.5926535897936,
  headersAt: 5e-324,
  endAt: 1.7976931348623157e308,
  responseTimes: [1 / 3, 2 / 3, 123456.000001],
  firstOutputAt: 1 / 3,
  lastResponseAt: 123456.000001,
  status: 200,
  content: 'héllo "wörld"\n\u2028 \ud83d\ude00',
  reasoning: "",
  usage: { promptTokens: 10, completionTokens: 3, totalTokens: 13, reasoningTokens: 0 },
  serverTiming: {
    source: "llama.cpp",
    queueMs: 0.1 + 0.7,
    prefillMs: 12.345678901234,
    decodeMs: 1 / 9,
    inferenceMs: 3,
    totalMs: 4,
    promptTokens: 10,
    decodeTokens: 3,
    cachedTokens: 0,
  },
  finishReason: "stop",
  error: { type: "HTTPError", code: 500, message: "boom", group: "g" },
  cancelled: false,
  inputTokens: 10,
  inputPrompt: { texts: ["a", "b"], messages: [{ role: "user", content: "a" }, { role: "assistant", content: "b" }] },
  requestedOutputTokens: 3,
  connectionRetries: 1,
  connectionReused: true,
  bytesSent: 100,
  bytesReceived: 200,
  poolWaitStartAt: 1.5,
  poolWaitEndAt: 1.75,
  connectStartAt: 2.125,
  connectEndAt: 2.25,
  writeStartAt: 3.0000000001,
  firstBodyAt: 4,
  lastBodyAt: 5,
  chunksSent: 1,
  chunksReceived: 4,
  bodyBytesSent: 80,
  bodyBytesReceived: 150,
  rawResponses: [{ t: 1 / 7, text: "data" }],
  sentBody: "{}",
  specDecode: {
    engine: "vllm",
    meanAcceptanceLength: 7 / 3,
    draftAcceptanceRate: 4 / 9,
    acceptanceHistogram: { "0": 1, "1": 1, "3": 1 },
    numAcceptedDraftTokens: 4,
    numDraftTokens: 9,
    numSpecSteps: 3,
    numSpecTokens: 3,
    completionTokens: 7,
    perStepAccepted: [0, 1, 3],
    perStepDrafted: [3, 3, 3],
  },
};

Deno.test("record codec: every field round-trips bit for bit", () => {
  const back = decodeRecord(encodeRecord(FULL));
  assert.deepStrictEqual(back, FULL);
  for (const [k, v] of Object.entries(FULL)) {
    if (typeof v === "number") assert.ok(Object.is((back as unknown as Record<string, number>)[k], v), k);
  }
  assert.ok(Object.is(back.responseTimes[0], 1 / 3));
});

Deno.test("record codec: absent optional fields stay absent", () => {
  const minimal: RequestRecord = {
    phase: "warmup",
    requestIndex: 0,
    sessionNum: 0,
    conversationId: "c",
    turnIndex: 0,
    xRequestId: "x",
    xCorrelationId: "y",
    workerId: "worker_0",
    creditIssuedAt: 0,
    startAt: 1,
    endAt: 2,
    responseTimes: [],
    content: "",
    reasoning: "",
    cancelled: true,
  };
  const back = decodeRecord(encodeRecord(minimal));
  assert.deepStrictEqual(back, minimal);
  assert.ok(!("status" in back));
});

Deno.test("record codec: a wrong, missing or unknown field is an error naming it", () => {
  const line = JSON.parse(encodeRecord(FULL));
  const bad = (patch: Record<string, unknown>, pattern: RegExp) =>
    assert.throws(
      () => decodeRecord({ ...line, ...patch }),
      (e: Error) => e instanceof RecordCodecError && pattern.test(e.message),
    );
  bad({ startAt: "1" }, /'startAt' must be a number/);
  bad({ startAt: undefined }, /'startAt' is missing/);
  bad({ phase: "cooldown" }, /'phase'/);
  bad({ responseTimes: [1, "2"] }, /'responseTimes'/);
  bad({ usage: { promptTokens: 1, tokens: 2 } }, /unknown key 'tokens'/);
  bad({ error: { type: "E" } }, /'error'/);
  bad({ rawResponses: [{ t: 1 }] }, /'rawResponses'/);
  bad({ serverTiming: { source: "vllm", prefillMs: 1 } }, /'serverTiming' \.source must be one of/);
  bad({ serverTiming: { source: "tgi", queueMs: -1 } }, /'serverTiming' \.queueMs must be a number/);
  bad({ serverTiming: { source: "tgi", queueMs: "3" } }, /'serverTiming' \.queueMs must be a number/);
  bad({ serverTiming: { source: "tgi", latency: 3 } }, /'serverTiming' has an unknown key 'latency'/);
  bad({ serverTiming: [1] }, /'serverTiming' must be an object/);
  bad({ inputPrompt: { texts: [1] } }, /'inputPrompt' needs 'texts'/);
  bad({ inputPrompt: { texts: [], messages: [{ role: "user" }] } }, /'inputPrompt' \.messages/);
  bad({ lineage: { agentDepth: 0, parentCorrelationId: "p", rootCorrelationId: "r" } }, /'lineage'/);
  bad({ lineage: { agentDepth: 1, parentCorrelationId: "p" } }, /'lineage'/);
  bad({ specDecode: { engine: "vllm" } }, /'specDecode' must be a speculative-decoding record/);
  bad({ extra: 1 }, /unknown field 'extra'/);
  assert.throws(() => decodeRecord("{not json"), RecordCodecError);
  assert.throws(() => decodeRecord("[]"), /JSON object/);
});

Deno.test("record codec: non-finite numbers cannot be encoded (JSON would turn them into null)", () => {
  assert.throws(() => encodeRecord({ ...FULL, endAt: NaN }), /'endAt' is NaN/);
  assert.throws(() => encodeRecord({ ...FULL, responseTimes: [Infinity] }), /Infinity/);
});
