/**
 * Turns an {@linkcode HttpRequest} into the bytes written to the socket: request line, Host, headers,
 * Content-Length and body in one buffer, so the request usually leaves in one write.
 *
 * The buffers are reused: `encode` takes one from the encoder's free list and `release` gives it back once the
 * request's writes are over. A new buffer per request was an ArrayBuffer with its own backing store (a `malloc`,
 * zeroed, then freed by the garbage collector) on every request of the engine thread.
 */
import type { HttpRequest } from "./http_exchange.ts";

const EMPTY = new Uint8Array(0);
/** Requests up to this size are encoded into reused buffers; larger ones get a buffer of their own. */
export const POOLED_REQUEST_BYTES = 16 * 1024;
/** Most free buffers kept (about this many requests in flight reuse theirs; more allocate). */
const MAX_FREE_BUFFERS = 1024;
/** Smallest buffer made for the free list, so a run's requests of slightly different sizes share buffers. */
const MIN_POOLED_BYTES = 2048;
const HEADER_INJECTION = /[\r\n\0]/;
const BAD_PATH = /[\s\0]/;

export class RequestEncoder {
  readonly #hostLine: string;
  readonly #closeConnections: boolean;
  readonly #encoder = new TextEncoder();
  readonly #commonCache = new WeakMap<ReadonlyArray<readonly [string, string]>, CommonHead>();
  /** Buffers of released requests (each of `POOLED_REQUEST_BYTES` or less), most recently released last. */
  readonly #free: ArrayBuffer[] = [];

  /**
   * `hostHeader`: the Host value written unless a header sets Host. `closeConnections`: ask the server to close
   * after each response (`Connection: close`) unless the request sets `Connection` itself.
   */
  constructor(hostHeader: string, closeConnections: boolean) {
    this.#hostLine = `Host: ${hostHeader}\r\n`;
    this.#closeConnections = closeConnections;
  }

  /**
   * The request as bytes. The request line, Host and `commonHeaders` are the same for every request of a run:
   * they are checked, joined and encoded once per `commonHeaders` array and copied in as bytes, so only the
   * request's own few headers are handled per request. The bytes may share a buffer with a request released
   * earlier: hand them to {@linkcode release} once nothing reads them any more (the writes are over), and not before.
   * @throws {TypeError} for an empty path, whitespace in the path, or header injection.
   */
  encode(req: HttpRequest): Uint8Array {
    if (BAD_PATH.test(req.path) || req.path === "") {
      throw new TypeError(
        `Request path ${JSON.stringify(req.path)} is empty or contains whitespace; percent-encode it.`,
      );
    }
    const own = serializeFields(req.headers);
    const common = req.commonHeaders === undefined ? undefined : this.#commonHead(req, own.hasHost);
    let head = common === undefined ? this.#requestLine(req, own.hasHost) : "";
    head += own.text;
    const fields = common?.fields;
    const body = req.body;
    if (!fields?.hasLength && !own.hasLength && (body !== undefined || req.method === "POST")) {
      head += `Content-Length: ${body?.length ?? 0}\r\n`;
    }
    if (this.#closeConnections && !fields?.hasConnection && !own.hasConnection) head += "Connection: close\r\n";
    head += "\r\n";
    const prefix = common?.bytes ?? EMPTY;
    const bodyLen = body?.length ?? 0;
    const out = this.#buffer(prefix.length + head.length * 3 + bodyLen);
    out.set(prefix);
    const { written } = this.#encoder.encodeInto(head, prefix.length === 0 ? out : out.subarray(prefix.length));
    const headLen = prefix.length + written;
    if (body !== undefined) out.set(body, headLen);
    return out.subarray(0, headLen + bodyLen);
  }

  /**
   * Gives back the buffer of bytes `encode` returned, for a later request to reuse. Call it once per `encode`, after
   * the last write of those bytes has completed (a pending write still reads them).
   */
  release(bytes: Uint8Array): void {
    const buffer = bytes.buffer as ArrayBuffer;
    if (buffer.byteLength <= POOLED_REQUEST_BYTES && this.#free.length < MAX_FREE_BUFFERS) this.#free.push(buffer);
  }

  /** A buffer of at least `size` bytes: a released one when it is large enough, else a new one. */
  #buffer(size: number): Uint8Array {
    if (size > POOLED_REQUEST_BYTES) return new Uint8Array(size);
    const free = this.#free.pop();
    if (free !== undefined && free.byteLength >= size) return new Uint8Array(free);
    // Too small for this request (a longer prompt): a new one, sized for requests up to twice this one.
    return new Uint8Array(Math.min(POOLED_REQUEST_BYTES, Math.max(MIN_POOLED_BYTES, 2 * size)));
  }

  /** The request line, and the client's Host line unless a header sets Host. */
  #requestLine(req: HttpRequest, hostSet: boolean): string {
    const line = `${req.method} ${req.path} HTTP/1.1\r\n`;
    return hostSet ? line : line + this.#hostLine;
  }

  /** The encoded request line, Host line (unless a header sets Host) and common fields of `req`, cached. */
  #commonHead(req: HttpRequest, ownHost: boolean): CommonHead {
    const headers = req.commonHeaders!;
    const cached = this.#commonCache.get(headers);
    if (
      cached !== undefined && cached.method === req.method && cached.path === req.path && cached.ownHost === ownHost
    ) {
      return cached;
    }
    const fields = cached?.fields ?? serializeFields(headers);
    const text = this.#requestLine(req, fields.hasHost || ownHost) + fields.text;
    const made: CommonHead = { method: req.method, path: req.path, ownHost, fields, bytes: this.#encoder.encode(text) };
    this.#commonCache.set(headers, made);
    return made;
  }
}

/** A request line, Host line and common header fields, encoded; cached per `commonHeaders` array. */
interface CommonHead {
  readonly method: string;
  readonly path: string;
  /** Whether the request's own headers set Host (then the client writes none). */
  readonly ownHost: boolean;
  readonly fields: SerializedFields;
  readonly bytes: Uint8Array;
}

interface SerializedFields {
  /** `Name: value\r\n` per field. */
  readonly text: string;
  readonly hasHost: boolean;
  readonly hasLength: boolean;
  readonly hasConnection: boolean;
}

/** Checks header fields (no injection) and serializes them, noting the ones the client would otherwise add. */
function serializeFields(headers: ReadonlyArray<readonly [string, string]>): SerializedFields {
  let hasHost = false;
  let hasLength = false;
  let hasConnection = false;
  let text = "";
  for (const [name, value] of headers) {
    if (HEADER_INJECTION.test(name) || HEADER_INJECTION.test(value) || name === "" || name.includes(":")) {
      throw new TypeError(
        `Request header ${JSON.stringify(name)} has an invalid name or a line break in its value; fix the header.`,
      );
    }
    // Compare case-insensitively only names of the right length, to keep this loop cheap.
    if (name.length === 4 && name.toLowerCase() === "host") hasHost = true;
    else if (name.length === 14 && name.toLowerCase() === "content-length") hasLength = true;
    else if (name.length === 10 && name.toLowerCase() === "connection") hasConnection = true;
    text += `${name}: ${value}\r\n`;
  }
  return { text, hasHost, hasLength, hasConnection };
}
