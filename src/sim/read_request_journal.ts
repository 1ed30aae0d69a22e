/**
 * Reads a request journal written by `serve-sim --record-requests` (see `request_journal.ts` for the format), for
 * tests that assert what a client sent and when. Every line is checked, so a test never reads a half-written or
 * foreign file as if it were a journal.
 */
import type { JournalEntry } from "./request_journal.ts";

/** The entries of the journal at `path`, in arrival order. @throws {SyntaxError} naming the first bad line. */
export async function readRequestJournal(path: string | URL): Promise<JournalEntry[]> {
  return parseRequestJournal(await Deno.readTextFile(path), String(path));
}

/** The entries of journal text. `source` names it in errors. @throws {SyntaxError} naming the first bad line. */
export function parseRequestJournal(text: string, source = "request journal"): JournalEntry[] {
  const entries: JournalEntry[] = [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const where = `${source}:${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(lines[i]);
    } catch (e) {
      throw new SyntaxError(`${where} is not JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
    entries.push(checkEntry(value, where));
  }
  return entries;
}

function checkEntry(value: unknown, where: string): JournalEntry {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new SyntaxError(`${where} is not a journal entry object.`);
  }
  const e = value as Record<string, unknown>;
  if (typeof e.received_at_ms !== "number" || !Number.isFinite(e.received_at_ms)) {
    throw new SyntaxError(`${where} has no numeric received_at_ms.`);
  }
  if (typeof e.method !== "string" || typeof e.path !== "string" || !e.path.startsWith("/")) {
    throw new SyntaxError(`${where} needs a string method and a path starting with '/'.`);
  }
  const headers = e.headers;
  if (
    typeof headers !== "object" || headers === null || Array.isArray(headers) ||
    !Object.values(headers).every((v) => typeof v === "string")
  ) {
    throw new SyntaxError(`${where} needs headers as an object of strings.`);
  }
  if (!("body" in e)) throw new SyntaxError(`${where} has no body field.`);
  return {
    received_at_ms: e.received_at_ms,
    method: e.method,
    path: e.path,
    headers: headers as Record<string, string>,
    body: e.body,
  };
}
