import assert from "node:assert/strict";
import { auditSoak, type ClientSide, errorClass, type ServerSide, type SummarySide } from "./soak_audit.ts";

const server: ServerSide = {
  received: 100,
  duplicateIds: 0,
  byStatus: { "200": 95, "500": 5 },
  disconnects: 3,
  stalls: 2,
};
const client: ClientSide = {
  records: 100,
  duplicateIds: 0,
  missingRecords: 0,
  unknownRecords: 0,
  successes: 90,
  http500: 5,
  cut: 3,
  timeouts: 2,
  other: {},
};
const summary: SummarySide = {
  requestCount: 90,
  errorRequestCount: 10,
  errorSummary: { "500 Internal Server Error": 5, "N/A ConnectionResetError": 3, "N/A TimeoutError": 2 },
};

Deno.test("the soak audit balances when server, records and summary agree", () => {
  const lines = auditSoak(server, client, summary);
  assert.deepEqual(lines.filter((l) => !l.ok), []);
  assert.equal(lines[0].values, "journal 100 = server answers 100 = records 100 = summary requests + errors 100");
});

Deno.test("the soak audit names each disagreement", () => {
  const failing = (s: ServerSide, c: ClientSide, m: SummarySide) =>
    auditSoak(s, c, m).filter((l) => !l.ok).map((l) => l.check);
  // A request recorded twice: one record too many, a duplicate id, one success too many.
  assert.deepEqual(failing(server, { ...client, records: 101, duplicateIds: 1, successes: 91 }, summary), [
    "every request received is recorded once",
    "the same requests on both sides (X-Request-ID)",
    "successes",
  ]);
  // A stall recorded as a success (a timeout not enforced).
  assert.deepEqual(failing(server, { ...client, successes: 91, timeouts: 1 }, summary), [
    "successes",
    "stalls past the request timeout",
    "error records",
  ]);
  assert.deepEqual(failing(server, { ...client, other: { "N/A CancelledError": 1 } }, summary), ["no other outcome"]);
  assert.deepEqual(
    failing(server, client, { ...summary, errorSummary: { ...summary.errorSummary, "N/A TimeoutError": 1 } }),
    [
      "stalls past the request timeout",
      "error records",
    ],
  );
});

Deno.test("errorClass groups like the error summary: code (N/A without one) and type", () => {
  assert.equal(errorClass({ code: 500, type: "Internal Server Error" }), "500 Internal Server Error");
  assert.equal(errorClass({ type: "TimeoutError" }), "N/A TimeoutError");
});
