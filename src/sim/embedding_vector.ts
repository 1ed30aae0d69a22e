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

/** A relevance score in (-10, 10) for a query–passage pair, stable across runs. */
export function relevanceScore(query: string, passage: string): number {
  return new SeededRandom(textSeed(query + "\u0000" + passage)).next() * 20 - 10;
}
