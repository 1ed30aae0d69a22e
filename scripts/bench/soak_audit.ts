/**
 * The soak's audit: what the server saw (its request journal and its own counters), what the client recorded
 * (`profile_export.jsonl`) and what the summary says (`profile_export_aiperf.json`) must agree exactly — every
 * request recorded once, under the class of the fault the server injected into it.
 */

/** What the server saw. */
export interface ServerSide {
  /** Inference requests in the journal (`--record-requests`). */
  readonly received: number;
  /** `X-Request-ID`s received more than once. */
  readonly duplicateIds: number;
  /** Answers by HTTP status (`sim_requests_total`). */
  readonly byStatus: Readonly<Record<string, number>>;
  /** Faults injected (`sim_faults_total`). */
  readonly disconnects: number;
  readonly stalls: number;
}

/** What the client recorded, one class per record. */
export interface ClientSide {
  readonly records: number;
  readonly duplicateIds: number;
  /** Journal ids with no record, and record ids the journal lacks. */
  readonly missingRecords: number;
  readonly unknownRecords: number;
  readonly successes: number;
  readonly http500: number;
  /** Answers cut short by the server (`ConnectionResetError`). */
  readonly cut: number;
  /** No complete answer within the request timeout (`TimeoutError`). */
  readonly timeouts: number;
  /** Anything else, by `code type`: none is expected. */
  readonly other: Readonly<Record<string, number>>;
}

/** What the summary JSON says. */
export interface SummarySide {
  readonly requestCount: number;
  readonly errorRequestCount: number;
  /** `error_summary` counts by `code type`. */
  readonly errorSummary: Readonly<Record<string, number>>;
}

export interface AuditLine {
  readonly check: string;
  readonly values: string;
  readonly ok: boolean;
}

/** Each check with the numbers it compared; the audit balances when every line is ok. */
export function auditSoak(server: ServerSide, client: ClientSide, summary: SummarySide): AuditLine[] {
  const answered = Object.values(server.byStatus).reduce((a, b) => a + b, 0);
  const ok200 = server.byStatus["200"] ?? 0;
  const all = (label: string, ...pairs: [string, number][]): AuditLine => ({
    check: label,
    values: pairs.map(([k, v]) => `${k} ${v}`).join(" = "),
    ok: pairs.every(([, v]) => v === pairs[0][1]),
  });
  const summaryErrors = Object.values(summary.errorSummary).reduce((a, b) => a + b, 0);
  const other = Object.entries(client.other);
  return [
    all(
      "every request received is recorded once",
      ["journal", server.received],
      ["server answers", answered],
      ["records", client.records],
      ["summary requests + errors", summary.requestCount + summary.errorRequestCount],
    ),
    all(
      "the same requests on both sides (X-Request-ID)",
      ["duplicates in journal", server.duplicateIds],
      ["duplicates in records", client.duplicateIds],
      ["received, not recorded", client.missingRecords],
      ["recorded, not received", client.unknownRecords],
      ["zero", 0],
    ),
    all(
      "successes",
      ["server 200 − cut − stalled", ok200 - server.disconnects - server.stalls],
      ["records", client.successes],
      ["summary request_count", summary.requestCount],
    ),
    all(
      "HTTP 500",
      ["server", server.byStatus["500"] ?? 0],
      ["records", client.http500],
      ["summary", summary.errorSummary["500 Internal Server Error"] ?? 0],
    ),
    all(
      "connections dropped mid-answer",
      ["server", server.disconnects],
      ["records", client.cut],
      ["summary", summary.errorSummary["N/A ConnectionResetError"] ?? 0],
    ),
    all(
      "stalls past the request timeout",
      ["server", server.stalls],
      ["records", client.timeouts],
      ["summary", summary.errorSummary["N/A TimeoutError"] ?? 0],
    ),
    all("error records", ["records", client.records - client.successes], ["summary error_summary", summaryErrors]),
    {
      check: "no other outcome",
      values: other.length === 0 ? "none" : other.map(([k, v]) => `${k}: ${v}`).join(", "),
      ok: other.length === 0,
    },
  ];
}

/** `code type` of a record's error, as the error summary groups it (`500 Internal Server Error`). */
export function errorClass(error: { readonly code?: number | null; readonly type: string }): string {
  return `${error.code ?? "N/A"} ${error.type}`;
}
