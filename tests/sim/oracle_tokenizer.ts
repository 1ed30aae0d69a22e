/**
 * Test helper: the `Tokenizer` contract over js-tiktoken's o200k_base, the oracle our counts are checked against.
 * Construction takes over a second, so each test file builds it once (lazily, on first use).
 */
import { Tiktoken } from "js-tiktoken/lite";
import o200k from "js-tiktoken/ranks/o200k_base";
import type { Tokenizer } from "../../src/tokenizer/tokenizer.ts";

let shared: Tokenizer | undefined;

/** The shared oracle tokenizer of this isolate. */
export function oracleTokenizer(): Tokenizer {
  if (shared) return shared;
  const enc = new Tiktoken(o200k);
  shared = {
    name: "builtin",
    encode: (text) => enc.encode(text, [], []),
    decode: (ids) => enc.decode([...ids]),
    count: (text) => enc.encode(text, [], []).length,
  };
  return shared;
}
