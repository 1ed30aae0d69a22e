/**
 * Which Hugging Face `tokenizer.json` shapes the fast byte-level BPE path ({@linkcode HfBpeTokenizer}) runs, read
 * from the parsed file: a BPE model over a byte-level vocabulary (GPT-2, Llama 3, Qwen 2/3, Mistral's Tekken…),
 * pre-tokenized by either
 * - `ByteLevel` with its own GPT-2 regex (`use_regex` true), or
 * - `Sequence[Split(Regex, Isolated, invert false), ByteLevel(use_regex false, add_prefix_space false)]`,
 *
 * an optional Unicode normalizer (NFC/NFD/NFKC/NFKD) and a ByteLevel decoder. Anything else (WordPiece, Unigram,
 * SentencePiece-style BPE with `byte_fallback`, other normalizers or pre-tokenizers, word suffixes, `unk_token`)
 * is left to `@huggingface/tokenizers`: {@linkcode readHfBpeSpec} says why in one phrase.
 *
 * The post-processor is ignored on purpose: counts never include template tokens (AIPerf encodes with
 * `add_special_tokens=False`).
 */

import { type HfBpeMerges, type HfBpeVocab, mergesFromList, vocabFromObject } from "./hf_bpe_model_data.ts";
import type { ChainedMerges, ResolvedMerges } from "./hf_bpe_resolved_merges.ts";

/** An entry of `added_tokens`, with `@huggingface/tokenizers`' defaults applied. */
export interface AddedTokenSpec {
  readonly content: string;
  readonly id: number;
  readonly lstrip: boolean;
  readonly rstrip: boolean;
  readonly special: boolean;
  /** Matched in the normalized text (else in the raw text); defaults to `!special`. */
  readonly normalized: boolean;
}

/** How a section of text becomes pieces before the BPE model sees them. */
export interface PreTokenizerSpec {
  /** `Split`'s `Regex` (Oniguruma syntax, still to be translated) or undefined for ByteLevel's own GPT-2 regex. */
  readonly splitRegex: string | undefined;
  /** ByteLevel's `add_prefix_space` (only with ByteLevel's own regex). */
  readonly addPrefixSpace: boolean;
}

export interface HfBpeSpec {
  readonly vocab: HfBpeVocab;
  /** As read, or already resolved (symbols) or chained by token (a quick first load) as the scanner read them. */
  readonly merges: HfBpeMerges | ResolvedMerges | ChainedMerges;
  readonly ignoreMerges: boolean;
  readonly normalizer: "NFC" | "NFD" | "NFKC" | "NFKD" | undefined;
  readonly preTokenizer: PreTokenizerSpec;
  readonly addedTokens: readonly AddedTokenSpec[];
}

/** The spec, or a phrase saying why this file needs the general implementation. */
export type HfBpeSpecResult = { readonly spec: HfBpeSpec } | { readonly unsupported: string };

type Json = Record<string, unknown>;

/** `model.vocab` and `model.merges` already read from the file's bytes (hf_bpe_scan.ts). */
export interface ScannedModelData {
  readonly vocab: HfBpeVocab;
  readonly merges: HfBpeMerges | ResolvedMerges | ChainedMerges;
}

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

const UNICODE_FORMS = new Set(["NFC", "NFD", "NFKC", "NFKD"]);

/**
 * @param json The parsed `tokenizer.json`.
 * @param config The parsed `tokenizer_config.json` (options that change encoding are checked), or `{}`.
 * @param scanned The model's vocab and merges when the scanner read them (`json` then holds empty ones).
 * @throws {Error} when a vocabulary id is not a non-negative integer.
 */
export function readHfBpeSpec(json: Json, config: Json = {}, scanned?: ScannedModelData): HfBpeSpecResult {
  const model = json.model;
  if (!isObject(model)) return { unsupported: "no model object" };
  if (model.type !== "BPE") return { unsupported: `a ${String(model.type ?? "untyped")} model` };
  if (model.byte_fallback === true) return { unsupported: "a BPE model with byte_fallback" };
  if (model.unk_token !== null && model.unk_token !== undefined) return { unsupported: "a BPE model with unk_token" };
  if (model.dropout !== null && model.dropout !== undefined && model.dropout !== 0) {
    return { unsupported: "BPE dropout" };
  }
  if (model.end_of_word_suffix || model.continuing_subword_suffix) {
    return { unsupported: "a BPE model with word suffixes" };
  }
  if (!isObject(model.vocab) || !Array.isArray(model.merges)) {
    return { unsupported: "a BPE model without vocab/merges" };
  }
  if (config.remove_space === true || config.do_lowercase_and_remove_accent === true) {
    return { unsupported: "tokenizer_config.json options that rewrite the text" };
  }
  let normalizer: HfBpeSpec["normalizer"];
  const norm = json.normalizer;
  if (norm === null || norm === undefined) normalizer = undefined;
  else if (isObject(norm) && UNICODE_FORMS.has(String(norm.type))) normalizer = norm.type as HfBpeSpec["normalizer"];
  else return { unsupported: `a ${isObject(norm) ? String(norm.type) : "non-object"} normalizer` };
  const pre = readPreTokenizer(json.pre_tokenizer);
  if (typeof pre === "string") return { unsupported: pre };
  const decoder = json.decoder;
  if (decoder !== null && decoder !== undefined && !(isObject(decoder) && decoder.type === "ByteLevel")) {
    return { unsupported: `a ${isObject(decoder) ? String(decoder.type) : "non-object"} decoder` };
  }
  const addedTokens: AddedTokenSpec[] = [];
  const added = json.added_tokens ?? [];
  if (!Array.isArray(added)) return { unsupported: "added_tokens that is not a list" };
  for (const t of added) {
    if (!isObject(t) || typeof t.content !== "string" || typeof t.id !== "number") {
      return { unsupported: "an added token without content and id" };
    }
    const special = t.special === true;
    addedTokens.push({
      content: t.content,
      id: t.id,
      lstrip: t.lstrip === true,
      rstrip: t.rstrip === true,
      special,
      normalized: typeof t.normalized === "boolean" ? t.normalized : !special,
    });
  }
  return {
    spec: {
      vocab: scanned?.vocab ?? vocabFromObject(model.vocab),
      merges: scanned?.merges ?? mergesFromList(model.merges),
      ignoreMerges: model.ignore_merges === true,
      normalizer,
      preTokenizer: pre,
      addedTokens,
    },
  };
}

function readPreTokenizer(pre: unknown): PreTokenizerSpec | string {
  if (!isObject(pre)) return "no pre-tokenizer";
  if (pre.type === "ByteLevel") {
    if (pre.use_regex === false) return "a ByteLevel pre-tokenizer without a regex";
    return { splitRegex: undefined, addPrefixSpace: pre.add_prefix_space === true };
  }
  const parts = pre.type === "Sequence" && Array.isArray(pre.pretokenizers) ? pre.pretokenizers : undefined;
  if (parts === undefined || parts.length !== 2 || !isObject(parts[0]) || !isObject(parts[1])) {
    return `a ${String(pre.type)} pre-tokenizer`;
  }
  const [split, byteLevel] = parts as [Json, Json];
  if (byteLevel.type !== "ByteLevel" || byteLevel.use_regex !== false || byteLevel.add_prefix_space === true) {
    return "a pre-tokenizer sequence other than Split + ByteLevel";
  }
  const pattern = split.pattern;
  if (
    split.type !== "Split" || split.invert !== false || String(split.behavior).toLowerCase() !== "isolated" ||
    !isObject(pattern) || typeof pattern.Regex !== "string"
  ) {
    return "a Split pre-tokenizer other than an isolating regex";
  }
  return { splitRegex: pattern.Regex, addPrefixSpace: false };
}
