/**
 * Deterministic embedding vectors for the simulator: the same text gives the same unit-length vector on every run
 * and every server, so clients can compare answers; different texts give unrelated ones.
 */
import { SeededRandom } from "../base/seeded_random.ts";

/** FNV-1a over UTF-16 code units: a stable 32-bit seed from the text. */
function textSeed(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** `dimensions` components in [-1, 1], scaled to unit length, as JSON text with 6 decimals. */
export function embeddingJson(text: string, dimensions: number): string {
  const rng = new SeededRandom(textSeed(text));
  const v = new Float64Array(dimensions);
  let norm = 0;
  for (let i = 0; i < dimensions; i++) {
    const x = rng.next() * 2 - 1;
    v[i] = x;
    norm += x * x;
  }
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  let out = "[";
  for (let i = 0; i < dimensions; i++) out += (i > 0 ? "," : "") + (v[i] * scale).toFixed(6);
  return out + "]";
}

/**
 * Vectors already written, by text and length, for one server. The same text always gives the same vector and a
 * benchmark sends the same prompts again and again, while writing 768 components with `toFixed` costs more than the
 * rest of the answer: without this the simulator, not the client, set the pace of an embeddings benchmark.
 */
export class EmbeddingVectors {
  readonly #byKey = new Map<string, string>();
  readonly #limit: number;

  /** @param limit vectors kept (the oldest goes first); texts over {@linkcode CACHED_TEXT_CHARS} are not kept */
  constructor(limit = 1024) {
    this.#limit = limit;
  }

  /** {@linkcode embeddingJson} of `text`, from the cache when it was written before. */
  json(text: string, dimensions: number): string {
    if (text.length > CACHED_TEXT_CHARS) return embeddingJson(text, dimensions);
    const key = `${dimensions}:${text}`;
    let json = this.#byKey.get(key);
    if (json === undefined) {
      json = embeddingJson(text, dimensions);
      if (this.#byKey.size >= this.#limit) this.#byKey.delete(this.#byKey.keys().next().value!);
      this.#byKey.set(key, json);
    }
    return json;
  }

  /** Vectors kept now. */
  get size(): number {
    return this.#byKey.size;
  }
}

/** Longest text whose vector is kept. */
export const CACHED_TEXT_CHARS = 16_384;

/** A relevance score in (-10, 10) for a query–passage pair, stable across runs. */
export function relevanceScore(query: string, passage: string): number {
  return new SeededRandom(textSeed(query + "\u0000" + passage)).next() * 20 - 10;
}
