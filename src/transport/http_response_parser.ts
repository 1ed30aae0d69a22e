/**
 * Incremental HTTP/1.1 response parser (RFC 9112): status line, header fields, interim 1xx responses, and bodies
 * delimited by Content-Length, chunked transfer coding, or connection close.
 *
 * It never copies body bytes: each body range is handed to `onBody(bytes, start, end)` on the caller's buffer,
 * so the SSE framer can run on the read buffer itself. Only the head (status line + headers) and an
 * incomplete head line are buffered. Protocol violations throw `SyntaxError` with a one-sentence message.
 */

/** The final (non-1xx) response head. */
export interface HttpResponseHead {
  readonly status: number;
  readonly reason: string;
  /** Minor version of `HTTP/1.x`: 0 or 1. */
  readonly minorVersion: number;
  /** Lower-cased names; repeated fields joined with ", " in arrival order. */
  readonly headers: ReadonlyMap<string, string>;
}

/** How the body of the current response is delimited (RFC 9112 §6.3). */
export type BodyFraming = "none" | "length" | "chunked" | "close";

export interface HttpResponseParserHandlers {
  /** The final head was parsed; body ranges (if any) follow. */
  readonly onHead: (head: HttpResponseHead) => void;
  /** A range of de-chunked body bytes; valid only during the call (the buffer is reused). */
  readonly onBody: (bytes: Uint8Array, start: number, end: number) => void;
}

const LF = 0x0a;
const CR = 0x0d;
const SEMICOLON = 0x3b;
const SPACE = 0x20;
const TAB = 0x09;

/** Responses whose head grows beyond this are refused rather than buffered without bound. */
const MAX_HEAD_BYTES = 256 * 1024;
/** Chunk extensions and trailers are skipped; this bounds how much junk we tolerate. */
const MAX_CHUNK_LINE_BYTES = 16 * 1024;
const MAX_TRAILER_BYTES = 64 * 1024;
/** 13 hex digits = 2^52: larger chunk sizes cannot be counted exactly in a JS number. */
const MAX_CHUNK_SIZE_DIGITS = 13;

// Parser states: numbers, because the body loop switches on them for every chunk.
const S_HEAD = 0;
const S_LENGTH_BODY = 1;
const S_CLOSE_BODY = 2;
const S_CHUNK_SIZE = 3;
const S_CHUNK_EXT = 4;
const S_CHUNK_DATA = 5;
const S_CHUNK_DATA_CR = 6;
const S_CHUNK_DATA_LF = 7;
const S_TRAILERS = 8;
const S_DONE = 9;

export class HttpResponseParser {
  readonly #onHead: (head: HttpResponseHead) => void;
  readonly #onBody: (bytes: Uint8Array, start: number, end: number) => void;
  #state = S_HEAD;
  #noBody = false;
  /** Bytes of an incomplete head line carried over from the previous push. */
  #lineCarry = new Uint8Array(512);
  #lineCarryLen = 0;
  #headBytes = 0;
  #status = 0;
  #reason = "";
  #minor = 1;
  #headers = new Map<string, string>();
  #lastHeader: string | undefined = undefined;
  #framing: BodyFraming = "none";
  #keepAlive = false;
  /** Content-Length bytes or current chunk bytes still to come. */
  #remaining = 0;
  #contentLength: number | undefined = undefined;
  #chunkDigits = 0;
  #chunkLineBytes = 0;
  #trailerBytes = 0;
  #trailerLineLen = 0;
  #bodyBytes = 0;
  /**
   * Header lines parsed before on this connection, by a hash of their bytes: a server repeats most of its header
   * lines on every response, and a line's text, name and value were strings made again per response.
   */
  readonly #seen: (SeenLine | undefined)[] = new Array(SEEN_SLOTS).fill(undefined);
  /**
   * The header line met at each position of the heads before (the status line not counted), as in `#seen`: a server
   * sends its lines in the same order, so a line equal to the one at its position is known without searching for its
   * end or hashing it.
   */
  readonly #atPosition: (SeenLine | undefined)[] = [];
  /** The position of the next header line of this head. */
  #position = 0;
  /** The last status line parsed on this connection, likewise. */
  #seenStatus: { line: string; status: number; minor: number; reason: string } | undefined;

  constructor(handlers: HttpResponseParserHandlers) {
    this.#onHead = handlers.onHead;
    this.#onBody = handlers.onBody;
  }

  /**
   * Prepares for the next response on the connection. `noBody` is true for responses that cannot carry one
   * whatever their headers say (the answer to a HEAD request).
   */
  start(noBody = false): void {
    this.#state = S_HEAD;
    this.#noBody = noBody;
    this.#lineCarryLen = 0;
    this.#headBytes = 0;
    this.#resetHead();
    this.#framing = "none";
    this.#keepAlive = false;
    this.#remaining = 0;
    this.#contentLength = undefined;
    this.#bodyBytes = 0;
  }

  /** True once the whole response (head and body) was parsed. */
  get done(): boolean {
    return this.#state === S_DONE;
  }

  /** True once the final head was parsed (body may still be incomplete). */
  get headComplete(): boolean {
    return this.#state !== S_HEAD;
  }

  /**
   * Whether the server lets the connection carry another request: HTTP/1.1 unless `Connection: close`,
   * HTTP/1.0 only with `Connection: keep-alive`, never for close-delimited bodies. Meaningful once done.
   */
  get keepAlive(): boolean {
    return this.#keepAlive && this.#state === S_DONE;
  }

  get framing(): BodyFraming {
    return this.#framing;
  }

  /** The body length announced by Content-Length when that delimits the body, else undefined. */
  get contentLength(): number | undefined {
    return this.#contentLength;
  }

  /** De-chunked body bytes delivered so far. */
  get bodyBytes(): number {
    return this.#bodyBytes;
  }

  /**
   * Parses `bytes[start, end)`. Returns the index just past the consumed bytes: `end`, or less when the response
   * finished earlier (the rest belongs to nothing we asked for).
   * @throws {SyntaxError} on a protocol violation.
   */
  push(bytes: Uint8Array, start: number, end: number): number {
    let i = start;
    while (i < end) {
      switch (this.#state) {
        case S_HEAD:
          i = this.#pushHead(bytes, i, end);
          break;
        case S_LENGTH_BODY: {
          const n = Math.min(this.#remaining, end - i);
          this.#remaining -= n;
          this.#bodyBytes += n;
          if (this.#remaining === 0) this.#state = S_DONE;
          this.#onBody(bytes, i, i + n);
          i += n;
          break;
        }
        case S_CLOSE_BODY:
          this.#bodyBytes += end - i;
          this.#onBody(bytes, i, end);
          i = end;
          break;
        case S_CHUNK_SIZE:
          i = this.#pushChunkSize(bytes, i, end);
          break;
        case S_CHUNK_EXT: {
          // Chunk extensions carry nothing we use: skip to the end of the size line.
          let j = i;
          while (j < end && bytes[j] !== LF) j++;
          this.#chunkLineBytes += j - i;
          if (this.#chunkLineBytes > MAX_CHUNK_LINE_BYTES) {
            throw new SyntaxError(
              `HTTP chunk-size line is longer than ${MAX_CHUNK_LINE_BYTES} bytes; the server's chunked encoding is broken.`,
            );
          }
          if (j < end) {
            this.#endChunkSizeLine();
            j++;
          }
          i = j;
          break;
        }
        case S_CHUNK_DATA: {
          const n = Math.min(this.#remaining, end - i);
          this.#remaining -= n;
          this.#bodyBytes += n;
          if (this.#remaining === 0) this.#state = S_CHUNK_DATA_CR;
          this.#onBody(bytes, i, i + n);
          i += n;
          break;
        }
        case S_CHUNK_DATA_CR: {
          const b = bytes[i++];
          if (b === CR) this.#state = S_CHUNK_DATA_LF;
          else if (b === LF) this.#beginChunkSize();
          else throw chunkDataEndError(b);
          break;
        }
        case S_CHUNK_DATA_LF: {
          const b = bytes[i++];
          if (b !== LF) throw chunkDataEndError(b);
          this.#beginChunkSize();
          break;
        }
        case S_TRAILERS:
          i = this.#pushTrailers(bytes, i, end);
          break;
        default: // S_DONE
          return i;
      }
    }
    return i;
  }

  /**
   * The connection reached end of file. Returns true when that completes the response (a close-delimited body,
   * or a response already done); false when the response was cut short.
   */
  finish(): boolean {
    if (this.#state === S_CLOSE_BODY) this.#state = S_DONE;
    return this.#state === S_DONE;
  }

  /** Where a cut-short response stopped, in words for error messages. */
  get phase(): "head" | "body" | "done" {
    return this.#state === S_HEAD ? "head" : this.#state === S_DONE ? "done" : "body";
  }

  #resetHead(): void {
    this.#status = 0;
    this.#reason = "";
    this.#minor = 1;
    this.#headers = new Map();
    this.#lastHeader = undefined;
    this.#position = 0;
  }

  #pushHead(bytes: Uint8Array, i: number, end: number): number {
    while (i < end && this.#state === S_HEAD) {
      if (this.#status !== 0 && this.#lineCarryLen === 0) {
        // The line met at this position before, with its CR and LF, is known.
        const known = this.#atPosition[this.#position];
        if (known !== undefined) {
          const n = known.line.length;
          if (
            i + n + 1 < end && bytes[i + n] === CR && bytes[i + n + 1] === LF && sameLine(known.line, bytes, i, i + n)
          ) {
            this.#headBytes += n + 2;
            if (this.#headBytes > MAX_HEAD_BYTES) throw headTooLong();
            this.#position++;
            this.#addHeader(known.name, known.value);
            i += n + 2;
            continue;
          }
        }
      }
      let j = i;
      while (j < end && bytes[j] !== LF) j++;
      this.#headBytes += j - i + (j < end ? 1 : 0);
      if (this.#headBytes > MAX_HEAD_BYTES) throw headTooLong();
      if (j === end) {
        this.#carryLine(bytes, i, end);
        return end;
      }
      if (this.#lineCarryLen > 0) {
        this.#carryLine(bytes, i, j);
        const len = this.#lineCarryLen;
        this.#lineCarryLen = 0;
        this.#headLine(this.#lineCarry, 0, len);
      } else {
        this.#headLine(bytes, i, j);
      }
      i = j + 1;
    }
    return i;
  }

  #carryLine(bytes: Uint8Array, start: number, end: number): void {
    const need = this.#lineCarryLen + (end - start);
    if (need > this.#lineCarry.length) {
      const grown = new Uint8Array(Math.max(need, this.#lineCarry.length * 2));
      grown.set(this.#lineCarry.subarray(0, this.#lineCarryLen));
      this.#lineCarry = grown;
    }
    this.#lineCarry.set(bytes.subarray(start, end), this.#lineCarryLen);
    this.#lineCarryLen = need;
  }

  /** One head line `buf[s, e)` without its LF (a preceding CR is stripped here). */
  #headLine(buf: Uint8Array, s: number, e: number): void {
    if (e > s && buf[e - 1] === CR) e--;
    if (this.#status === 0) {
      // Tolerate stray blank lines before the status line (RFC 9112 §2.2 robustness).
      if (e === s) return;
      const seen = this.#seenStatus;
      if (seen !== undefined && sameLine(seen.line, buf, s, e)) {
        this.#status = seen.status;
        this.#minor = seen.minor;
        this.#reason = seen.reason;
        return;
      }
      const line = latin1(buf, s, e);
      this.#statusLine(line);
      if (e - s <= MAX_SEEN_LINE_BYTES) {
        this.#seenStatus = { line, status: this.#status, minor: this.#minor, reason: this.#reason };
      }
      return;
    }
    if (e === s) {
      this.#endOfHead();
      return;
    }
    const position = this.#position++;
    const first = buf[s];
    const slot = first === SPACE || first === TAB ? -1 : lineSlot(buf, s, e);
    const seen = slot < 0 ? undefined : this.#seen[slot];
    if (seen !== undefined && sameLine(seen.line, buf, s, e)) {
      if (position < MAX_POSITIONS) this.#atPosition[position] = seen;
      this.#addHeader(seen.name, seen.value);
      return;
    }
    const line = latin1(buf, s, e);
    if (first === SPACE || first === TAB) {
      // Obsolete line folding (RFC 9112 §5.2): the continuation belongs to the previous field, joined by a space.
      if (this.#lastHeader === undefined) throw new SyntaxError(`HTTP header block starts with a folded line.`);
      const prev = this.#headers.get(this.#lastHeader) ?? "";
      this.#headers.set(this.#lastHeader, `${prev} ${line.trim()}`);
      return;
    }
    const colon = line.indexOf(":");
    if (colon <= 0) {
      throw new SyntaxError(
        `HTTP response header line ${quote(line)} has no field name and colon; the server sent a malformed header.`,
      );
    }
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (slot >= 0 && e - s <= MAX_SEEN_LINE_BYTES) {
      const entry = { line, name, value };
      this.#seen[slot] = entry;
      if (position < MAX_POSITIONS) this.#atPosition[position] = entry;
    }
    this.#addHeader(name, value);
  }

  #addHeader(name: string, value: string): void {
    const prev = this.#headers.get(name);
    this.#headers.set(name, prev === undefined ? value : `${prev}, ${value}`);
    this.#lastHeader = name;
  }

  #statusLine(line: string): void {
    const m = /^HTTP\/1\.(\d) (\d{3})(?:[ \t](.*))?$/.exec(line);
    if (m === null) {
      throw new SyntaxError(
        `HTTP status line ${quote(line)} is not "HTTP/1.x NNN reason"; point the URL at an HTTP/1.1 server.`,
      );
    }
    const status = Number(m[2]);
    if (status < 100) {
      throw new SyntaxError(`HTTP status line ${quote(line)} has status ${status}, below 100; the server is broken.`);
    }
    this.#status = status;
    this.#minor = Number(m[1]);
    this.#reason = m[3] ?? "";
  }

  #endOfHead(): void {
    const status = this.#status;
    if (status < 200) {
      if (status === 101) {
        throw new SyntaxError(`HTTP server switched protocols (101) though no upgrade was requested.`);
      }
      // Interim response (100 Continue, 103 Early Hints, ...): the real one follows on the same connection.
      this.#resetHead();
      return;
    }
    const headers = this.#headers;
    const connection = headers.get("connection");
    if (connection === undefined) this.#keepAlive = this.#minor >= 1;
    else {
      const tokens = connection.toLowerCase().split(",").map((t) => t.trim());
      this.#keepAlive = this.#minor >= 1 ? !tokens.includes("close") : tokens.includes("keep-alive");
    }

    const te = headers.get("transfer-encoding");
    const cl = headers.get("content-length");
    let next: number;
    if (this.#noBody || status === 204 || status === 304) {
      this.#framing = "none";
      next = S_DONE;
    } else if (te !== undefined) {
      const codings = te.toLowerCase().split(",");
      if (codings[codings.length - 1].trim() === "chunked") {
        this.#framing = "chunked";
        next = S_CHUNK_SIZE;
        this.#beginChunkSize();
      } else {
        // A non-chunked final coding can only be delimited by closing the connection (RFC 9112 §6.3 item 4).
        this.#framing = "close";
        next = S_CLOSE_BODY;
        this.#keepAlive = false;
      }
      // Both Transfer-Encoding and Content-Length: a smuggling smell; don't reuse the connection (§6.3 item 3).
      if (cl !== undefined) this.#keepAlive = false;
    } else if (cl !== undefined) {
      const length = parseContentLength(cl);
      this.#framing = "length";
      this.#remaining = length;
      this.#contentLength = length;
      next = length === 0 ? S_DONE : S_LENGTH_BODY;
    } else {
      this.#framing = "close";
      next = S_CLOSE_BODY;
      this.#keepAlive = false;
    }
    this.#state = next;
    this.#onHead({ status, reason: this.#reason, minorVersion: this.#minor, headers });
  }

  #beginChunkSize(): void {
    this.#state = S_CHUNK_SIZE;
    this.#remaining = 0;
    this.#chunkDigits = 0;
    this.#chunkLineBytes = 0;
  }

  #pushChunkSize(bytes: Uint8Array, i: number, end: number): number {
    while (i < end) {
      const b = bytes[i];
      const digit = hexValue(b);
      if (digit >= 0) {
        if (++this.#chunkDigits > MAX_CHUNK_SIZE_DIGITS) {
          throw new SyntaxError(`HTTP chunk size has more than ${MAX_CHUNK_SIZE_DIGITS} hex digits; refusing it.`);
        }
        this.#remaining = this.#remaining * 16 + digit;
        i++;
      } else if (b === LF) {
        this.#endChunkSizeLine();
        return i + 1;
      } else if (b === CR || b === SEMICOLON || b === SPACE || b === TAB) {
        // Extensions (`;name=value`), whitespace before them, or the CR of CRLF: all skipped up to the LF.
        this.#state = S_CHUNK_EXT;
        return i;
      } else {
        throw new SyntaxError(
          `HTTP chunk size contains byte 0x${
            b.toString(16).padStart(2, "0")
          }; the server's chunked encoding is broken.`,
        );
      }
    }
    return i;
  }

  #endChunkSizeLine(): void {
    if (this.#chunkDigits === 0) {
      throw new SyntaxError(`HTTP chunk-size line has no hex size; the server's chunked encoding is broken.`);
    }
    if (this.#remaining === 0) {
      this.#state = S_TRAILERS;
      this.#trailerBytes = 0;
      this.#trailerLineLen = 0;
    } else {
      this.#state = S_CHUNK_DATA;
    }
  }

  /** Skips trailer fields after the last chunk until the blank line that ends the message. */
  #pushTrailers(bytes: Uint8Array, i: number, end: number): number {
    while (i < end) {
      const b = bytes[i++];
      if (b === LF) {
        if (this.#trailerLineLen === 0) {
          this.#state = S_DONE;
          return i;
        }
        this.#trailerLineLen = 0;
      } else if (b !== CR) {
        this.#trailerLineLen++;
        if (++this.#trailerBytes > MAX_TRAILER_BYTES) {
          throw new SyntaxError(`HTTP trailers exceed ${MAX_TRAILER_BYTES} bytes; the server's response is broken.`);
        }
      }
    }
    return i;
  }
}

/**
 * A header line as received (its bytes read as ISO-8859-1, one char per byte: a string rather than a copy of the
 * bytes, as a copy is a new ArrayBuffer, allocated outside the heap, on every line not seen before) and the field
 * it gave.
 */
interface SeenLine {
  readonly line: string;
  readonly name: string;
  readonly value: string;
}

/**
 * Slots of the seen-line table (a power of two), and the longest line kept in it. Enough for a server's constant
 * lines and a few dozen values of its changing ones (Content-Length, Date) side by side.
 */
const SEEN_SLOTS = 64;
const MAX_SEEN_LINE_BYTES = 256;
/** Header line positions remembered (a head's first lines). */
const MAX_POSITIONS = 32;

function headTooLong(): SyntaxError {
  return new SyntaxError(
    `HTTP response head exceeds ${MAX_HEAD_BYTES} bytes without ending; the server is not sending a valid response.`,
  );
}

/** The seen-line slot of `buf[s, e)`: FNV-1a over its bytes. */
function lineSlot(buf: Uint8Array, s: number, e: number): number {
  let h = 0x811c9dc5;
  for (let i = s; i < e; i++) h = Math.imul(h ^ buf[i], 0x01000193);
  return (h >>> 0) & (SEEN_SLOTS - 1);
}

/** Whether `buf[s, e)` read as ISO-8859-1 is `line`. */
function sameLine(line: string, buf: Uint8Array, s: number, e: number): boolean {
  if (line.length !== e - s) return false;
  for (let i = 0; i < line.length; i++) if (line.charCodeAt(i) !== buf[s + i]) return false;
  return true;
}

/**
 * `buf[s, e)` read as ISO-8859-1, the legacy charset of header bytes (RFC 9110 §5.5) and the reading `fetch`
 * gives them: each byte is the code point of the same value. Not `TextDecoder("latin1")`: that label means
 * windows-1252 (WHATWG), which reads 0x80–0x9F as other characters, and a decoder call per line (a runtime op)
 * cost ~2.8 µs per 7-line head against ~0.9 µs here, on every response.
 */
function latin1(buf: Uint8Array, s: number, e: number): string {
  let out = "";
  // Arguments are bounded by the engine's stack; lines are split into pieces well below that.
  for (let i = s; i < e; i += LATIN1_PIECE) {
    const piece = buf.subarray(i, Math.min(e, i + LATIN1_PIECE)) as unknown as number[];
    out += String.fromCharCode.apply(null, piece);
  }
  return out;
}

const LATIN1_PIECE = 4096;

/** Value of an ASCII hex digit, or -1. */
function hexValue(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  const lower = b | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

/** Content-Length, allowing repeated identical values ("5, 5") as RFC 9110 §8.6 does. */
function parseContentLength(value: string): number {
  // The usual value, digits alone, read without splitting it.
  const n = value.length;
  if (n >= 1 && n <= 15) {
    let length = 0;
    let i = 0;
    for (; i < n; i++) {
      const d = value.charCodeAt(i) - 0x30;
      if (d < 0 || d > 9) break;
      length = length * 10 + d;
    }
    if (i === n) return length;
  }
  const parts = value.split(",").map((p) => p.trim());
  const first = parts[0];
  if (!/^\d{1,15}$/.test(first) || parts.some((p) => p !== first)) {
    throw new SyntaxError(`HTTP Content-Length ${quote(value)} is not one non-negative integer; the server is broken.`);
  }
  return Number(first);
}

function chunkDataEndError(b: number): SyntaxError {
  return new SyntaxError(
    `HTTP chunk data is followed by byte 0x${
      b.toString(16).padStart(2, "0")
    } instead of CRLF; the chunk size does not match its data.`,
  );
}

/** A JSON-quoted, shortened copy of untrusted text for error messages. */
function quote(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}
