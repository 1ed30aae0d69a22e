/**
 * The request journal (`serve-sim --record-requests FILE`): one JSONL line per request received, on every route
 * (404s and 401s included), in arrival order, so tests of the product see exactly what a client sent and when, from
 * the server's side:
 *
 * `{"received_at_ms": <epoch ms>, "method": "POST", "path": "/v1/chat/completions?x=1", "headers": {...},
 *   "body": <parsed JSON | raw text | null>}`
 *
 * - `received_at_ms`: `performance.timeOrigin + performance.now()` taken as the request reaches the app, before its
 *   body is read (fractional ms, the clock of `sim_sent_at_ms`).
 * - `headers`: lower-cased names; credentials and anything that looks like one (authorization,
 *   proxy-authorization, x-api-key, api-key, cookie, set-cookie, and every name containing "token", "secret" or
 *   "key") read `"<redacted>"`.
 * - `body`: the JSON value when the body parses as JSON, else its text; null when empty.
 *
 * Why batched: the request path only copies the request line and headers and keeps the body's promise; lines are
 * built and written by a timer every {@link FLUSH_INTERVAL_MS}, in one write per batch, through an async file
 * write that does not block the event loop. `close()` (server shutdown, SIGINT/SIGTERM included) writes the rest.
 * The file is created, or truncated: one journal per server run.
 */
import { isSecretHeaderName, REDACTED } from "../base/redact_secrets.ts";

/** One journal line. */
export interface JournalEntry {
  readonly received_at_ms: number;
  readonly method: string;
  /** Path with the query string. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Parsed JSON, or the raw text when the body is not JSON, or null when it is empty. */
  readonly body: unknown;
}

/** Where the app reports requests as they arrive; a `RequestJournal`, or a test's own. */
export interface RequestRecorder {
  /** Called once per request, in arrival order, before the body is read; `body` settles with its text. */
  record(receivedAtMs: number, request: Request, body: Promise<string>): void;
}

/** The journal file cannot be opened or written; the message names the file. */
export class RequestJournalError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "RequestJournalError";
  }
}

/** How long received requests wait before their batch is written. */
export const FLUSH_INTERVAL_MS = 20;
/** At close, how long to wait for request bodies still being read before writing them as null. */
const CLOSE_BODY_WAIT_MS = 1000;

interface Pending {
  readonly receivedAtMs: number;
  readonly method: string;
  readonly url: string;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: Promise<string>;
  text: string | undefined;
  settled: boolean;
}

export class RequestJournal implements RequestRecorder {
  readonly path: string;
  readonly #file: Deno.FsFile;
  readonly #encoder = new TextEncoder();
  /** Received and not yet written, in arrival order. */
  #pending: Pending[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The write in progress (writes never overlap, so lines keep their order). */
  #writing: Promise<void> = Promise.resolve();
  #writeError: unknown;
  #closing: Promise<void> | undefined;

  private constructor(path: string, file: Deno.FsFile) {
    this.path = path;
    this.#file = file;
  }

  /**
   * Creates (or truncates) the journal file.
   * @throws {RequestJournalError} when the file cannot be opened.
   */
  static async open(path: string): Promise<RequestJournal> {
    try {
      const file = await Deno.open(path, { write: true, create: true, truncate: true });
      return new RequestJournal(path, file);
    } catch (e) {
      throw new RequestJournalError(`cannot open the request journal ${path}: ${message(e)}`, { cause: e });
    }
  }

  record(receivedAtMs: number, request: Request, body: Promise<string>): void {
    if (this.#closing !== undefined) return;
    // Copied now: the runtime frees a request's method, URL and headers once its response is sent.
    const headers: [string, string][] = [];
    request.headers.forEach((value, name) => headers.push([name, value]));
    const entry: Pending = {
      receivedAtMs,
      method: request.method,
      url: request.url,
      headers,
      body,
      text: undefined,
      settled: false,
    };
    body.then((text) => {
      entry.text = text;
      entry.settled = true;
    }, () => {
      entry.settled = true;
    });
    this.#pending.push(entry);
    this.#timer ??= setTimeout(() => this.#flushDue(), FLUSH_INTERVAL_MS);
  }

  /** Writes every request received so far whose body has been read; resolves once it is in the file. */
  async flush(): Promise<void> {
    this.#write(this.#takeSettled());
    await this.#writing;
    if (this.#writeError !== undefined) {
      throw new RequestJournalError(`cannot write the request journal ${this.path}: ${message(this.#writeError)}`, {
        cause: this.#writeError,
      });
    }
  }

  /** Writes everything received (bodies still unread after a wait are written as null) and closes the file. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.allSettled(this.#pending.map((p) => p.body)),
        new Promise((resolve) => timer = setTimeout(resolve, CLOSE_BODY_WAIT_MS)),
      ]);
      clearTimeout(timer);
      const rest = this.#pending;
      this.#pending = [];
      this.#write(rest);
      await this.#writing;
      this.#file.close();
      if (this.#writeError !== undefined) {
        throw new RequestJournalError(
          `cannot write the request journal ${this.path}: ${message(this.#writeError)}`,
          { cause: this.#writeError },
        );
      }
    })();
    return this.#closing;
  }

  #flushDue(): void {
    this.#timer = undefined;
    this.#write(this.#takeSettled());
    // Requests whose bodies are still arriving wait for the next batch.
    if (this.#pending.length > 0) this.#timer = setTimeout(() => this.#flushDue(), FLUSH_INTERVAL_MS);
  }

  /** The longest run of entries, from the oldest, whose bodies are read (arrival order is kept in the file). */
  #takeSettled(): Pending[] {
    let n = 0;
    while (n < this.#pending.length && this.#pending[n].settled) n++;
    if (n === 0) return [];
    const taken = this.#pending.slice(0, n);
    this.#pending = this.#pending.slice(n);
    return taken;
  }

  #write(entries: readonly Pending[]): void {
    if (entries.length === 0) return;
    let text = "";
    for (const entry of entries) text += JSON.stringify(toEntry(entry)) + "\n";
    const bytes = this.#encoder.encode(text);
    this.#writing = this.#writing.then(async () => {
      if (this.#writeError !== undefined) return;
      try {
        let rest = bytes;
        while (rest.length > 0) rest = rest.subarray(await this.#file.write(rest));
      } catch (e) {
        this.#writeError = e;
      }
    });
  }
}

/** Header entries as a journal object: names lower-cased, secrets replaced by `"<redacted>"`. */
export function redactHeaders(headers: Iterable<readonly [string, string]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [rawName, value] of headers) {
    const name = rawName.toLowerCase();
    out[name] = isSecretHeaderName(name) ? REDACTED : value;
  }
  return out;
}

function toEntry(p: Pending): JournalEntry {
  const url = new URL(p.url);
  return {
    received_at_ms: p.receivedAtMs,
    method: p.method,
    path: url.pathname + url.search,
    headers: redactHeaders(p.headers),
    body: parseBody(p.text),
  };
}

function parseBody(text: string | undefined): unknown {
  if (text === undefined || text.length === 0) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
