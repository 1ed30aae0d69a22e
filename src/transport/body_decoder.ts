/**
 * Decodes a `Content-Encoding: gzip | deflate | br` body with the runtime's `DecompressionStream`, handing the
 * decoded bytes on in order. Off the hot path: benchmarks normally run uncompressed (the client sends no
 * `Accept-Encoding` unless the user adds one), and a decoder costs promises per chunk.
 *
 * Timing: decoded bytes carry the arrival time of the latest encoded bytes written before they came out, which
 * is when their last input byte arrived (the decompressor may hold input back until it has a whole block).
 */

/** The `DecompressionStream` format for a Content-Encoding, undefined when this runtime cannot decode it. */
export function decompressionFormat(coding: string): CompressionFormat | undefined {
  const format = coding === "gzip" || coding === "x-gzip"
    ? "gzip"
    : coding === "deflate"
    ? "deflate"
    : coding === "br"
    ? "brotli"
    : undefined;
  if (format === undefined) return undefined;
  try {
    new DecompressionStream(format as CompressionFormat);
    return format as CompressionFormat;
  } catch {
    return undefined;
  }
}

export class BodyDecoder {
  readonly #writer: WritableStreamDefaultWriter<BufferSource>;
  readonly #pump: Promise<void>;
  #error: unknown = undefined;
  #t = 0;

  /** `onOutput(bytes, t)` receives decoded bytes in order; `bytes` is the caller's to keep. */
  constructor(format: CompressionFormat, onOutput: (bytes: Uint8Array, t: number) => void) {
    const stream = new DecompressionStream(format);
    this.#writer = stream.writable.getWriter();
    const reader = stream.readable.getReader();
    this.#pump = (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          onOutput(value, this.#t);
        }
      } catch (e) {
        this.#error ??= e;
      }
    })();
  }

  /** Feeds encoded bytes that arrived at `t` (copied: the caller's buffer is reused). */
  write(bytes: Uint8Array, start: number, end: number, t: number): void {
    this.#t = t;
    this.#writer.write(bytes.slice(start, end)).catch((e) => {
      this.#error ??= e;
    });
  }

  /** Ends the input and waits for every decoded byte; the decoding error, if the body was not valid. */
  async end(): Promise<unknown> {
    try {
      await this.#writer.close();
    } catch (e) {
      this.#error ??= e;
    }
    await this.#pump;
    return this.#error;
  }

  /** Stops decoding (the exchange failed). */
  abort(): void {
    this.#writer.abort().catch(() => {});
  }
}
