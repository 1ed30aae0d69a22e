/**
 * The synthetic dataset (AIPerf §5.2, text only): `numEntries` one-turn conversations whose prompts encode to an
 * exact, sampled number of tokens.
 *
 * - ISL ~ Normal(`islMean`, `islStddev`), rounded, ≥ 1; the prompt is synthesized to exactly that length and
 *   `inputTokens` records the achieved length (§12 item 11).
 * - OSL ~ Normal(`oslMean`, `oslStddev`), rounded, ≥ 1 → `maxTokens`; no `oslMean` → no `maxTokens`.
 * - Deterministic: the same options (seed included) give the same dataset. ISL, OSL and prompt windows use
 *   separate streams derived from the root generator (`synthetic.isl`, `synthetic.osl`, `synthetic.prompts`), so
 *   changing one distribution never shifts the others and the root is never advanced.
 * - Ids are `session_000000`, `session_000001`, … (six digits, more when needed).
 * - Multi-turn (AIPerf's `--conversation-turn-*`): a conversation has Normal(`turnMean`, `turnStddev`) turns, rounded,
 *   ≥ 1, each a fresh prompt with its own ISL and OSL; every later turn waits Normal(`turnDelayMean`,
 *   `turnDelayStddev`) ms, ≥ 0, after the previous answer. Turn counts and delays come from their own streams
 *   (`synthetic.turns`, `synthetic.delays`), so single-turn datasets are unchanged by them.
 * - `--seq-dist` replaces both length distributions by a mixture of (ISL, OSL) pairs (`sequence_distribution.ts`,
 *   stream `synthetic.seq-dist`); `--random-range-ratio` draws both uniformly from windows around the means
 *   (`range_ratio.ts`, stream `synthetic.range-ratio`, ISL then OSL per turn).
 * - `--prompt-corpus coding` cuts prompts from generated developer text (`coding_corpus.ts`, stream
 *   `synthetic.corpus`) instead of the bundled prose.
 */
import { InterruptCheck } from "../runtime/interrupt_check.ts";
import type { LazyTokenizer, Tokenizer } from "../tokenizer/tokenizer.ts";
import type { Conversation, Dataset, Turn } from "./conversation.ts";
import { DEFAULT_CORPUS } from "./default_corpus.ts";
import { PromptSynthesizer } from "./prompt_synthesizer.ts";
import { sampleLength, SeededRandom } from "../base/seeded_random.ts";
import { sampleSequencePair, type SequencePair } from "./sequence_distribution.ts";
import { inputBounds, outputBounds, type RangeRatio } from "./range_ratio.ts";
import { codingCorpus } from "./coding_corpus.ts";
import { type MediaOptions, MediaSynthesizer, wantsMedia } from "./synthetic_media.ts";
import { asLazyTokenizer } from "../tokenizer/tokenizer.ts";

export interface SyntheticDatasetOptions {
  /** Tokenizer that defines "token" for prompt lengths; a lazy one loads only if the piece table falls short. */
  readonly tokenizer: Tokenizer | LazyTokenizer;
  /** Stops building (Ctrl-C): checked per entry, `InterruptedError` thrown. */
  readonly signal?: AbortSignal;
  /** Unique entries generated (AIPerf `--num-dataset-entries` / `--num-prompts`). @default 100 */
  readonly numEntries?: number;
  /** Mean input length in tokens (`--isl`, `--synthetic-input-tokens-mean`). @default 550 */
  readonly islMean?: number;
  /** Standard deviation of the input length (`--isl-stddev`). @default 0 */
  readonly islStddev?: number;
  /** Mean requested output tokens (`--osl`); undefined = no `maxTokens` (server decides). @default undefined */
  readonly oslMean?: number;
  /** Standard deviation of the output length (`--osl-stddev`). @default 0 */
  readonly oslStddev?: number;
  /**
   * Root random stream (the run's `--random-seed` generator); only named streams derived from it are used, so it
   * is not advanced. Takes precedence over `seed`. @default new SeededRandom(seed)
   */
  readonly rng?: SeededRandom;
  /** Seed used when no `rng` is given; the caller draws one from entropy when the user gave none. @default 0 */
  readonly seed?: number;
  /** Text the prompts are cut from. @default DEFAULT_CORPUS (the bundled `datasets/corpus`) */
  readonly corpus?: string;
  /** Mean turns per conversation (`--conversation-turn-mean`). @default 1 */
  readonly turnMean?: number;
  /** Standard deviation of the turns per conversation. @default 0 */
  readonly turnStddev?: number;
  /** Mean think time before each later turn, ms (`--conversation-turn-delay-mean`). @default 0 */
  readonly turnDelayMean?: number;
  /** Standard deviation of the think time, ms. @default 0 */
  readonly turnDelayStddev?: number;
  /** A mixture of (ISL, OSL) pairs (`--seq-dist`), replacing the ISL and OSL distributions. */
  readonly seqDist?: readonly SequencePair[];
  /** Uniform windows around `islMean` and `oslMean` (`--random-range-ratio`); needs `oslMean`, no stddevs. */
  readonly rangeRatio?: RangeRatio;
  /** Corpus the prompts are cut from (`--prompt-corpus`); `corpus` wins when given. @default "sonnet" */
  readonly promptCorpus?: "sonnet" | "coding";
  /** Prompts per entry (`--prompt-batch-size`: inputs of one embeddings request), each of a sampled length.
   * @default 1 */
  readonly batchSize?: number;
  /** Synthetic images and audio sent with every turn (`--image-*`, `--audio-*`). @default undefined */
  readonly media?: MediaOptions;
  /** Tokens of one system prompt shared by every conversation (`--shared-system-prompt-length`). */
  readonly sharedSystemPromptLength?: number;
  /** Tokens of a user context prompt unique to each conversation, a text before its first turn's prompt. */
  readonly userContextPromptLength?: number;
  /** Prefixes drawn at random for first-turn prompts (`--prompt-prefix-pool-size`); 0 = none. */
  readonly prefixPoolSize?: number;
  /** Tokens of each prefix (`--prompt-prefix-length`). */
  readonly prefixLength?: number;
  /** Entries are rankings tasks (one query, several passages) instead of prompts. @default undefined */
  readonly rankings?: RankingsShape;
}

/** The `--rankings-*` options (AIPerf's defaults: one passage; query and passages of 550 tokens). */
export interface RankingsShape {
  readonly passagesMean: number;
  readonly passagesStddev: number;
  readonly passageTokensMean: number;
  readonly passageTokensStddev: number;
  readonly queryTokensMean: number;
  readonly queryTokensStddev: number;
}

/** Default mean ISL, as AIPerf. */
export const DEFAULT_ISL_MEAN = 550;
/** Default number of entries, as AIPerf. */
export const DEFAULT_NUM_ENTRIES = 100;

/** `session_000042`: zero-padded to six digits so ids sort in creation order. */
export function syntheticSessionId(index: number): string {
  return `session_${String(index).padStart(6, "0")}`;
}

/**
 * Build the synthetic dataset.
 *
 * @throws {RangeError} for a non-positive entry count or mean, or a negative standard deviation.
 */
export async function buildSyntheticDataset(options: SyntheticDatasetOptions): Promise<Dataset> {
  const numEntries = options.numEntries ?? DEFAULT_NUM_ENTRIES;
  const islMean = options.islMean ?? DEFAULT_ISL_MEAN;
  const islStddev = options.islStddev ?? 0;
  const oslStddev = options.oslStddev ?? 0;
  const oslMean = options.oslMean;
  if (!Number.isInteger(numEntries) || numEntries < 1) {
    throw new RangeError(`numEntries must be a positive integer, got ${numEntries}; use at least 1`);
  }
  if (!(islMean >= 1)) throw new RangeError(`islMean must be at least 1 token, got ${islMean}; use a positive mean`);
  if (!(islStddev >= 0)) throw new RangeError(`islStddev must be ≥ 0, got ${islStddev}; use 0 for a fixed length`);
  if (oslMean !== undefined && !(oslMean >= 1)) {
    throw new RangeError(`oslMean must be at least 1 token, got ${oslMean}; leave it unset to let the server decide`);
  }
  if (!(oslStddev >= 0)) throw new RangeError(`oslStddev must be ≥ 0, got ${oslStddev}; use 0 for a fixed length`);

  if (options.seqDist !== undefined && options.rangeRatio !== undefined) {
    throw new RangeError("--seq-dist and --random-range-ratio cannot be combined; give one of them");
  }
  const ratio = options.rangeRatio;
  if (ratio !== undefined) {
    if (oslMean === undefined) throw new RangeError("--random-range-ratio needs --osl (the OSL window's mean)");
    if (islStddev > 0 || oslStddev > 0) {
      throw new RangeError("--random-range-ratio sets the length spread; leave --isl-stddev and --osl-stddev at 0");
    }
  }

  const root = options.rng ?? new SeededRandom(options.seed ?? 0);
  const islRng = root.derive("synthetic.isl");
  const oslRng = root.derive("synthetic.osl");
  const mixRng = root.derive("synthetic.seq-dist");
  const ratioRng = root.derive("synthetic.range-ratio");
  const corpus = options.corpus ??
    (options.promptCorpus === "coding" ? codingCorpus(root.derive("synthetic.corpus")) : DEFAULT_CORPUS);
  const synthesizer = new PromptSynthesizer(options.tokenizer, corpus, root.derive("synthetic.prompts"));
  const islWindow = ratio && inputBounds(islMean, ratio.input);
  const oslWindow = ratio && outputBounds(oslMean!, ratio.output);
  const uniform = (rng: SeededRandom, [lo, hi]: [number, number]) => lo + rng.int(hi - lo + 1);
  /** One turn's (ISL, OSL); OSL undefined when the server decides. */
  const lengths = (): [number, number | undefined] => {
    if (options.seqDist !== undefined) return sampleSequencePair(options.seqDist, mixRng);
    if (islWindow !== undefined) return [uniform(ratioRng, islWindow), uniform(ratioRng, oslWindow!)];
    const isl = sampleLength(islRng, islMean, islStddev);
    return [isl, oslMean === undefined ? undefined : sampleLength(oslRng, oslMean, oslStddev)];
  };

  const turnMean = options.turnMean ?? 1;
  const turnStddev = options.turnStddev ?? 0;
  const delayMean = options.turnDelayMean ?? 0;
  const delayStddev = options.turnDelayStddev ?? 0;
  if (!(turnMean >= 1)) throw new RangeError(`turnMean must be at least 1, got ${turnMean}`);
  if (!(turnStddev >= 0) || !(delayMean >= 0) || !(delayStddev >= 0)) {
    throw new RangeError("turn and delay standard deviations and the delay mean must be ≥ 0");
  }
  const turnRng = root.derive("synthetic.turns");
  const delayRng = root.derive("synthetic.delays");
  const batchSize = options.batchSize ?? 1;
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw new RangeError(`batchSize must be a positive integer, got ${batchSize}; use at least 1`);
  }
  const conversations: Conversation[] = new Array(numEntries);
  const media = wantsMedia(options.media) ? new MediaSynthesizer(options.media!, root) : undefined;
  const poolSize = options.prefixPoolSize ?? 0;
  const prefixLength = options.prefixLength ?? 0;
  if (
    poolSize > 0 || prefixLength > 0 || options.sharedSystemPromptLength !== undefined ||
    options.userContextPromptLength !== undefined
  ) {
    if ((poolSize > 0) !== (prefixLength > 0)) {
      throw new RangeError("--prompt-prefix-pool-size and --prompt-prefix-length go together; give both (> 0)");
    }
    if (
      poolSize > 0 && (options.sharedSystemPromptLength !== undefined || options.userContextPromptLength !== undefined)
    ) {
      throw new RangeError(
        "--prompt-prefix-pool-size/--prompt-prefix-length cannot be combined with --shared-system-prompt-length or " +
          "--user-context-prompt-length; give one kind",
      );
    }
  }
  // Context prompts come from their own stream, so runs without them draw the same prompts as before.
  const contextSynth = new PromptSynthesizer(options.tokenizer, corpus, root.derive("synthetic.context-prompts"));
  const systemPrompt = options.sharedSystemPromptLength === undefined
    ? undefined
    : await contextSynth.prompt(options.sharedSystemPromptLength);
  const system = systemPrompt?.text;
  const systemTokens = systemPrompt?.tokens ?? 0;
  const prefixes: string[] = [];
  for (let p = 0; p < poolSize; p++) prefixes.push((await contextSynth.prompt(prefixLength)).text);
  const prefixRng = root.derive("synthetic.prefix-choice");
  /** The prefix then the prompt, counted as sent (a boundary could merge two tokens; the count is the real one). */
  const prefixed = async (prefix: string, prompt: { text: string; tokens: number }) => {
    const text = prefix + prompt.text;
    const tokenizer = await asLazyTokenizer(options.tokenizer).load();
    return { text, tokens: tokenizer.count(text) };
  };
  if (options.rankings !== undefined) {
    await buildRankingEntries(conversations, options.rankings, synthesizer, root);
    return { conversations, defaultSampling: "shuffle", source: "synthetic" };
  }
  const interrupt = new InterruptCheck(options.signal, "building the synthetic prompts");
  const mediaInFlight: Promise<void>[] = [];
  const mediaWindow = Math.max(1, navigator.hardwareConcurrency ?? 1);
  for (let i = 0; i < numEntries; i++) {
    const pause = interrupt.check();
    if (pause !== undefined) await pause;
    if (batchSize > 1) {
      // Several inputs per request: the ISL is the adapter's rule over all of them, counted when bodies are built.
      const texts: string[] = [];
      for (let b = 0; b < batchSize; b++) {
        texts.push((await synthesizer.prompt(sampleLength(islRng, islMean, islStddev))).text);
      }
      const batch: Turn = oslMean === undefined
        ? { texts }
        : { texts, maxTokens: sampleLength(oslRng, oslMean, oslStddev) };
      conversations[i] = { id: syntheticSessionId(i), turns: [batch] };
      continue;
    }
    const count = turnMean === 1 && turnStddev === 0 ? 1 : sampleLength(turnRng, turnMean, turnStddev);
    const turns: Turn[] = [];
    for (let k = 0; k < count; k++) {
      const [isl, osl] = lengths();
      const prompt = k === 0 && prefixes.length > 0
        ? await prefixed(prefixes[prefixRng.int(prefixes.length)], await synthesizer.prompt(isl))
        : await synthesizer.prompt(isl);
      const turn: { -readonly [K in keyof Turn]: Turn[K] } = {
        texts: [prompt.text],
        inputTokens: prompt.tokens + systemTokens,
      };
      if (k === 0 && options.userContextPromptLength !== undefined) {
        // A text of its own before the prompt (a separate content part), unique to the conversation.
        const context = await synthesizer.prompt(options.userContextPromptLength);
        turn.texts = [context.text, prompt.text];
        turn.inputTokens! += context.tokens;
      }
      if (media !== undefined) {
        // Clips encode while the next turns are drawn (one FFmpeg per core); the media are drawn in order regardless.
        const pending = media.next().then((items) => {
          turn.media = items;
        });
        pending.catch(() => {}); // awaited below; this only keeps a failure from being reported before then
        mediaInFlight.push(pending);
        if (mediaInFlight.length >= mediaWindow) await mediaInFlight.shift();
      }
      if (osl !== undefined) turn.maxTokens = osl;
      if (k > 0 && (delayMean > 0 || delayStddev > 0)) {
        turn.delayMs = Math.max(0, delayRng.normal(delayMean, delayStddev));
      }
      turns.push(turn);
    }
    conversations[i] = system === undefined
      ? { id: syntheticSessionId(i), turns }
      : { id: syntheticSessionId(i), turns, systemMessage: system };
  }
  await Promise.all(mediaInFlight);
  return { conversations, defaultSampling: "shuffle", source: "synthetic" };
}

/**
 * AIPerf's synthetic rankings entries: per entry, passages ~ Normal(passagesMean, passagesStddev) (at least 1), a
 * query of ~Normal(queryTokensMean, …) tokens and passages of ~Normal(passageTokensMean, …) tokens each, from separate
 * streams (`dataset.rankings.passages`, `….passages.tokens`, `….query.tokens`). Texts are named `query` and `passages`
 * and also listed in order in `texts`; the ISL is counted by the endpoint's rule when bodies are built.
 */
async function buildRankingEntries(
  out: Conversation[],
  shape: RankingsShape,
  synthesizer: PromptSynthesizer,
  root: SeededRandom,
): Promise<void> {
  const countRng = root.derive("dataset.rankings.passages");
  const passageRng = root.derive("dataset.rankings.passages.tokens");
  const queryRng = root.derive("dataset.rankings.query.tokens");
  for (let i = 0; i < out.length; i++) {
    const n = sampleLength(countRng, shape.passagesMean, shape.passagesStddev);
    const query =
      (await synthesizer.prompt(sampleLength(queryRng, shape.queryTokensMean, shape.queryTokensStddev))).text;
    const passages: string[] = [];
    for (let p = 0; p < n; p++) {
      passages.push(
        (await synthesizer.prompt(sampleLength(passageRng, shape.passageTokensMean, shape.passageTokensStddev))).text,
      );
    }
    out[i] = {
      id: syntheticSessionId(i),
      turns: [{ texts: [query, ...passages], named: { query: [query], passages } }],
    };
  }
}
