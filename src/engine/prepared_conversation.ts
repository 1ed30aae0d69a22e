/**
 * The dataset made ready to send, before the run: each conversation gets its model, each turn its output length,
 * its ISL (the adapter's input text, counted once) and, where its body cannot depend on the conversation so far,
 * its request bytes — so the hot path only looks them up. A turn whose body carries earlier turns and the server's
 * replies is built when it is sent (`buildTurnRequest`), and its ISL is counted from that body after the request. The payloads are what `inputs.json` records.
 */
import { InterruptCheck } from "../runtime/interrupt_check.ts";
import type { ContextMode, Conversation, Dataset, Spawn, ThinkTimeSpread, Turn } from "../dataset/conversation.ts";
import {
  type BuildContext,
  encodeRequestBody,
  type EndpointAdapter,
  type PriorExchange,
} from "../endpoints/endpoint_adapter.ts";
import { sampleLength, type SeededRandom } from "../base/seeded_random.ts";
import { asLazyTokenizer, type LazyTokenizer, type Tokenizer } from "../tokenizer/tokenizer.ts";
import { type InputPrompt, payloadPrompt, payloadText } from "../dataset/payload_text.ts";
import { InputError } from "../base/input_error.ts";
import type { ChatTemplate } from "../tokenizer/chat_template.ts";
import {
  type CacheBustTarget,
  markerText,
  placeholderOffsets,
  sessionDigest,
  stampText,
  withPlaceholder,
} from "./cache_bust.ts";

export interface PreparedTurn {
  readonly conversationId: string;
  readonly turnIndex: number;
  /**
   * The JSON body as known before the run (for `inputs.json`): the body as sent, or, for a turn built at send time,
   * its body without the conversation so far.
   */
  readonly payload: Readonly<Record<string, unknown>>;
  /** UTF-8 bytes of `payload`, sent as they are; undefined when the body is built at send time. */
  readonly body?: Uint8Array;
  /** The turn, kept when the conversation's later turns are built with the earlier ones. */
  readonly turn?: Turn;
  /** Output tokens asked of the server (`max_tokens`…), when the body asks. */
  readonly maxTokens?: number;
  /**
   * ISL: tokens of the adapter's input text, when the endpoint tokenizes input. For a turn built at send time this is
   * the turn alone; the record's ISL counts the whole body it was sent with (`LateTurnRequest.inputPrompt`).
   */
  readonly inputTokens?: number;
  readonly requestedOutputTokens?: number;
  /** Think time before this turn, after the previous turn's answer (ms; not on a first turn). */
  readonly delayMs?: number;
  /** Send time from the phase start (ms), for trace replay. */
  readonly timestampMs?: number;
  /** When the trace recorded the request (ms), for agentic replay's start points. */
  readonly recordedAtMs?: number;
  /** Byte offsets in `body` of the cache-bust placeholder digest a session overwrites (engine/cache_bust.ts). */
  readonly markerAt?: readonly number[];
  /** Child conversations started once this turn is answered. */
  readonly spawns?: readonly PreparedSpawn[];
  /** The turn sends nothing (a request-free orchestrator step); `payload` is empty. */
  readonly requestFree?: boolean;
}

/** `Spawn` with its children as indices into the prepared conversations (plain data for engine Workers). */
export interface PreparedSpawn {
  readonly children: readonly number[];
  readonly inheritContext?: boolean;
  readonly joinAt?: number;
}

export interface PreparedConversation {
  readonly id: string;
  readonly turns: readonly PreparedTurn[];
  /** The model of every turn that does not name its own. */
  readonly model: string;
  readonly systemMessage?: string;
  /** Later turns carry the earlier ones and the server's real replies (built at send time). */
  readonly withHistory: boolean;
  /** The turns carry the recorded answers: the history holds the earlier turns without the live replies. */
  readonly recordedReplies?: boolean;
  /** Its bodies carry the cache-bust placeholder: each session stamps its own digest. */
  readonly cacheBust?: boolean;
  /** Started only by a parent's spawns, never sampled as a session of its own. */
  readonly child?: boolean;
  /** Children started before the first turn. */
  readonly spawnsFirst?: readonly PreparedSpawn[];
  /** Some turn starts children or sends nothing: the engine runs its sessions as trees. */
  readonly tree?: boolean;
  /** Think times of request-free turns drawn around their delays. */
  readonly thinkTime?: ThinkTimeSpread;
}

/** The run-wide part of every request body (plain data: it crosses to engine Workers with the conversations). */
export type BodySettings = Omit<BuildContext, "model" | "maxTokens" | "systemMessage">;

export interface PrepareOptions extends BodySettings {
  readonly adapter: EndpointAdapter;
  readonly modelNames: readonly string[];
  readonly modelSelectionStrategy: "round_robin" | "random";
  /** Applies to turns without their own output length (file datasets); undefined = server decides. */
  readonly outputTokensMean?: number;
  readonly outputTokensStddev: number;
  readonly rng: SeededRandom;
  /** Counts the ISL of turns that do not carry it (file datasets); loaded only if one needs it. */
  readonly tokenizer?: Tokenizer | LazyTokenizer;
  /** `--apply-chat-template`: the ISL of an API with chat messages counts the rendered template instead. */
  readonly chatTemplate?: ChatTemplate;
  /** Where each session's cache-bust marker goes (`--cache-bust`). @default "none" */
  readonly cacheBust?: CacheBustTarget;
  /** Stops the preparation (Ctrl-C): checked per conversation, `InterruptedError` thrown. */
  readonly signal?: AbortSignal;
}

const DEFAULT_CONTEXT: ContextMode = "deltas_without_responses";

/**
 * Models are assigned per conversation like AIPerf: round robin (conversation n → model n mod N) or seeded random;
 * output lengths for turns without their own are drawn in dataset order.
 */
export async function prepareConversations(dataset: Dataset, opts: PrepareOptions): Promise<PreparedConversation[]> {
  const endpoint = `--endpoint-type ${opts.adapter.name}`;
  if (
    opts.adapter.writtenBodiesOnly &&
    dataset.conversations.some((c) => c.turns.some((t) => t.rawPayload === undefined && t.requestFree !== true))
  ) {
    throw new InputError(
      `${endpoint} sends the request bodies written in the dataset, and this one has none; give --input-file with a ` +
        "raw_payload or inputs_json dataset (or mooncake_trace lines with a payload), or use another endpoint type.",
    );
  }
  const accepted = opts.adapter.capabilities.media ?? [];
  const required = opts.adapter.capabilities.requiresMedia;
  for (const conversation of dataset.conversations) {
    for (const [i, turn] of conversation.turns.entries()) {
      if (turn.rawPayload !== undefined || turn.requestFree === true) continue;
      if (turn.messages !== undefined && !opts.adapter.capabilities.literalMessages) {
        throw new InputError(
          `${endpoint} cannot send the messages written in the dataset (conversation ${conversation.id}); use ` +
            "--endpoint-type chat.",
        );
      }
      if (required !== undefined && !turn.media?.some((m) => m.kind === required)) {
        throw new InputError(
          `${endpoint} sends ${mediaArticle(required)} input with every request, and turn ${i} of conversation ` +
            `${conversation.id} has none; ${MEDIA_HINTS[required]}.`,
        );
      }
      if (opts.adapter.capabilities.inlineMediaOnly) {
        const remote = turn.media?.find((m) => m.dataUrl === undefined);
        if (remote !== undefined) {
          throw new InputError(
            `${endpoint} sends media inline only, and conversation ${conversation.id} names a remote ${remote.kind} ` +
              `(${remote.url}); download it and give the local file path in the dataset, which is sent inline.`,
          );
        }
      }
      const refused = turn.media?.find((m) => !accepted.includes(m.kind));
      if (refused !== undefined) {
        throw new InputError(
          `${endpoint} cannot carry ${refused.kind} inputs, and conversation ${conversation.id} has some; use ` +
            `--endpoint-type chat, or remove the media fields from the dataset (synthetic media: the --${refused.kind}-* ` +
            "options that make them).",
        );
      }
    }
  }
  const modelRng = opts.rng.derive("model-selection");
  const oslRng = opts.rng.derive("file-osl");
  const countsInput = opts.adapter.capabilities.tokenizesInput;
  const templated = countsInput && opts.chatTemplate !== undefined && opts.adapter.chatMessages !== undefined;
  const needsCount = templated ||
    countsInput &&
      dataset.conversations.some((c) => c.turns.some((t) => t.inputTokens === undefined && t.requestFree !== true));
  if (needsCount && opts.tokenizer === undefined) {
    throw new TypeError("prepareConversations needs a tokenizer to count input tokens; pass options.tokenizer");
  }
  const bust = opts.cacheBust ?? "none";
  const counter = needsCount || (bust !== "none" && countsInput && opts.tokenizer !== undefined)
    ? await asLazyTokenizer(opts.tokenizer!).load()
    : undefined;
  // A precounted prompt (synthetic) grows by the marker: its tokens are estimated over a few digests, as AIPerf does.
  const markerTokens = bust === "none" || counter === undefined ? 0 : Math.round(
    Array.from({ length: 8 }, (_, i) => counter.count(markerText(bust, sessionDigest(0, i, "estimate"))))
      .reduce((a, b) => a + b, 0) / 8,
  );
  const links = resolveSpawns(dataset.conversations);
  const prepareOne = (original: Conversation, n: number): PreparedConversation => {
    const busted = withPlaceholder(original, bust);
    const conversation = busted?.conversation ?? original;
    const model = opts.modelSelectionStrategy === "random"
      ? opts.modelNames[modelRng.int(opts.modelNames.length)]
      : opts.modelNames[n % opts.modelNames.length];
    // A fork's child starts with its parent's conversation so far: even its first turn is built when sent.
    // A conversation that forks keeps its history to hand it on, even with one turn.
    const forked = links?.forked.has(n) === true;
    const forks = links !== undefined && conversation.turns.some((t) => t.spawns?.some((s) => s.inheritContext));
    const mode = conversation.contextMode ?? DEFAULT_CONTEXT;
    const withHistory = (conversation.turns.length > 1 || forked || forks) && opts.adapter.usesHistory &&
      mode !== "message_array_with_responses";
    // The first turn's delay is a child's start offset, or a request-free first turn's wait.
    const firstDelay = (turn: Turn) => conversation.child === true || turn.requestFree === true;
    const turns = conversation.turns.map((turn, turnIndex): PreparedTurn => {
      const spawns = links === undefined || turn.spawns === undefined ? undefined : links.resolve(turn.spawns);
      if (turn.requestFree === true) {
        return {
          conversationId: conversation.id,
          turnIndex,
          payload: {},
          requestFree: true,
          delayMs: turn.delayMs,
          ...(spawns === undefined ? {} : { spawns }),
        };
      }
      if (turn.rawPayload !== undefined) {
        const raw = rawTurn(opts.adapter, conversation.id, turn, turnIndex, counter);
        return spawns === undefined && !(turnIndex === 0 && firstDelay(turn))
          ? raw
          : { ...raw, delayMs: turn.delayMs, ...(spawns === undefined ? {} : { spawns }) };
      }
      let maxTokens = turn.maxTokens;
      if (maxTokens === undefined && opts.outputTokensMean !== undefined) {
        maxTokens = sampleLength(oslRng, opts.outputTokensMean, opts.outputTokensStddev);
      }
      const ctx = buildContext(opts, model, maxTokens, conversation.systemMessage);
      const payload = opts.adapter.buildRequest(turn, ctx, []);
      const lateBuilt = withHistory && (turnIndex > 0 || forked);
      let inputTokens = turn.inputTokens;
      if (inputTokens !== undefined && busted?.turnIndex === turnIndex) inputTokens += markerTokens;
      if (templated) {
        const messages = opts.adapter.chatMessages!(turn, { systemMessage: conversation.systemMessage });
        inputTokens = counter!.count(opts.chatTemplate!.render(messages));
      } else if (countsInput && inputTokens === undefined) {
        inputTokens = counter!.count(opts.adapter.inputText(turn, { systemMessage: conversation.systemMessage }));
      }
      const body = lateBuilt ? undefined : encodeBody(opts.adapter, payload, conversation.id, turnIndex);
      const markerAt = body !== undefined && bust !== "none" ? placeholderOffsets(body) : [];
      return {
        conversationId: conversation.id,
        turnIndex,
        payload,
        ...(lateBuilt ? { maxTokens } : { body }),
        ...(markerAt.length > 0 ? { markerAt } : {}),
        ...(withHistory ? { turn } : {}),
        inputTokens: countsInput ? inputTokens : undefined,
        requestedOutputTokens: (opts.adapter.requestedOutputTokens ?? readRequestedOutput)(payload) ?? maxTokens,
        delayMs: turnIndex > 0 || firstDelay(turn) ? turn.delayMs : undefined,
        timestampMs: turn.timestampMs,
        ...(turn.recordedAtMs === undefined ? {} : { recordedAtMs: turn.recordedAtMs }),
        ...(spawns === undefined ? {} : { spawns }),
      };
    });
    const tree = links !== undefined &&
      (conversation.spawnsFirst !== undefined ||
        conversation.turns.some((t) => t.spawns !== undefined || t.requestFree));
    return {
      id: conversation.id,
      turns,
      model,
      systemMessage: conversation.systemMessage,
      withHistory,
      ...(withHistory && mode === "deltas_with_responses" ? { recordedReplies: true } : {}),
      ...(bust !== "none" && busted !== undefined ? { cacheBust: true } : {}),
      ...(conversation.child === true ? { child: true } : {}),
      ...(tree ? { tree: true } : {}),
      ...(tree && conversation.spawnsFirst !== undefined
        ? { spawnsFirst: links!.resolve(conversation.spawnsFirst) }
        : {}),
      ...(conversation.thinkTime === undefined ? {} : { thinkTime: conversation.thinkTime }),
    };
  };
  // Counting a hundred thousand prompts takes seconds: a Ctrl-C meanwhile must be seen.
  const interrupt = new InterruptCheck(opts.signal, "preparing the request bodies");
  const prepared: PreparedConversation[] = [];
  for (let n = 0; n < dataset.conversations.length; n++) {
    const pause = interrupt.check();
    if (pause !== undefined) await pause;
    prepared.push(prepareOne(dataset.conversations[n], n));
  }
  return prepared;
}

/** How a dataset's spawns name their children: ids resolved to indices, and which conversations are forked. */
interface SpawnLinks {
  resolve(spawns: readonly Spawn[]): PreparedSpawn[];
  /** Indices of conversations some spawn starts with its parent's conversation so far. */
  readonly forked: ReadonlySet<number>;
}

/**
 * Undefined for a dataset with no spawns and no request-free turns (every dataset but agent DAGs: nothing to do).
 * @throws {InputError} when a spawn names a conversation the dataset lacks or one not marked as a child, or when
 *   the dataset has no conversation to start a session with.
 */
function resolveSpawns(conversations: readonly Conversation[]): SpawnLinks | undefined {
  const spawning = conversations.some((c) =>
    c.spawnsFirst !== undefined || c.turns.some((t) => t.spawns !== undefined || t.requestFree === true)
  );
  if (!spawning) return undefined;
  const index = new Map<string, number>();
  conversations.forEach((c, i) => index.set(c.id, i));
  if (conversations.every((c) => c.child === true)) {
    throw new InputError("every conversation of the dataset is a child of another: none can start a session.");
  }
  const forked = new Set<number>();
  const resolve = (spawns: readonly Spawn[]): PreparedSpawn[] =>
    spawns.map((spawn) => ({
      children: spawn.children.map((id) => {
        const i = index.get(id);
        if (i === undefined) throw new InputError(`a spawn names conversation ${id}, which the dataset does not have.`);
        if (conversations[i].child !== true) {
          throw new InputError(`a spawn names conversation ${id}, which is not marked as a child conversation.`);
        }
        if (spawn.inheritContext === true) forked.add(i);
        return i;
      }),
      ...(spawn.inheritContext === true ? { inheritContext: true } : {}),
      ...(spawn.joinAt === undefined ? {} : { joinAt: spawn.joinAt }),
    }));
  // Forked children are known before any conversation is prepared (a fork may name a conversation listed earlier).
  for (const c of conversations) {
    for (const s of [...(c.spawnsFirst ?? []), ...c.turns.flatMap((t) => t.spawns ?? [])]) {
      if (s.inheritContext !== true) continue;
      for (const id of s.children) {
        const i = index.get(id);
        if (i !== undefined) forked.add(i);
      }
    }
  }
  return { resolve, forked };
}

const MEDIA_HINTS = {
  audio: "give synthetic audio (--audio-length-mean) or an ASR dataset (--public-dataset librispeech), or a " +
    "dataset file whose turns name an audio file",
  image: "give synthetic images (--image-width-mean and --image-height-mean), or a dataset file whose turns name an " +
    "image",
  video: "give a dataset file whose turns name a video",
} as const;

function mediaArticle(kind: "image" | "audio" | "video"): string {
  return kind === "audio" ? "an audio" : `an ${kind}`;
}

/** The body's bytes; a body that cannot be encoded (an upload that is not base64) is an input error naming the turn. */
function encodeBody(
  adapter: EndpointAdapter,
  payload: Readonly<Record<string, unknown>>,
  conversationId: string,
  turnIndex: number,
): Uint8Array {
  try {
    return encodeRequestBody(adapter, payload);
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
    throw new InputError(`turn ${turnIndex} of conversation ${conversationId}: ${e.message}`);
  }
}

/**
 * A turn whose body the user wrote: its bytes are sent exactly as they are (no endpoint formatting, no extra
 * inputs); the ISL is counted from the prompt text inside it. An API that takes only form data gets the form the
 * JSON encodes (one constant boundary: the same JSON is always the same bytes).
 */
function rawTurn(
  adapter: EndpointAdapter,
  conversationId: string,
  turn: Turn,
  turnIndex: number,
  counter: Tokenizer | undefined,
): PreparedTurn {
  const text = turn.rawPayload!;
  const parsed = JSON.parse(text) as Record<string, unknown>;
  return {
    conversationId,
    turnIndex,
    payload: parsed,
    body: adapter.encodeBody !== undefined
      ? encodeBody(adapter, parsed, conversationId, turnIndex)
      : new TextEncoder().encode(text),
    inputTokens: counter?.count(payloadText(parsed)),
    requestedOutputTokens: readRequestedOutput(parsed),
    delayMs: turnIndex > 0 ? turn.delayMs : undefined,
    timestampMs: turn.timestampMs,
  };
}

/** A turn built when it is sent: its body, and the prompt it carries when its ISL is counted by the client. */
export interface LateTurnRequest {
  readonly body: Uint8Array;
  /** The conversation so far and this turn, as the body carries them (counted off the request path). */
  readonly inputPrompt?: InputPrompt;
}

/**
 * The body of a turn built when it is sent, with the conversation so far. Its ISL is what the body carries: the
 * earlier turns, the server's replies and this turn (AIPerf counts the payload on the wire), so the prompt comes
 * with it unless the endpoint counts no input or the server's counts are used.
 */
export function buildTurnRequest(
  adapter: EndpointAdapter,
  settings: BodySettings,
  conversation: PreparedConversation,
  turn: PreparedTurn,
  history: readonly PriorExchange[],
  cacheBustDigest?: string,
): LateTurnRequest {
  const ctx = buildContext(settings, conversation.model, turn.maxTokens, conversation.systemMessage);
  const payload = adapter.buildRequest(turn.turn!, ctx, history);
  const text = JSON.stringify(payload);
  const body = new TextEncoder().encode(cacheBustDigest === undefined ? text : stampText(text, cacheBustDigest));
  const counted = adapter.capabilities.tokenizesInput && !settings.useServerTokenCount;
  return counted ? { body, inputPrompt: payloadPrompt(payload) } : { body };
}

function buildContext(
  s: BodySettings,
  model: string,
  maxTokens: number | undefined,
  systemMessage: string | undefined,
): BuildContext {
  return {
    model,
    streaming: s.streaming,
    maxTokens,
    useLegacyMaxTokens: s.useLegacyMaxTokens,
    useServerTokenCount: s.useServerTokenCount,
    ...(s.perChunkUsage === true ? { perChunkUsage: true } : {}),
    extraInputs: s.extraInputs,
    systemMessage,
  };
}

/** The run-wide body settings out of the preparation options (what a shard needs to build late turns). */
export function bodySettings(o: BodySettings): BodySettings {
  return {
    streaming: o.streaming,
    useLegacyMaxTokens: o.useLegacyMaxTokens,
    useServerTokenCount: o.useServerTokenCount,
    ...(o.perChunkUsage === true ? { perChunkUsage: true } : {}),
    extraInputs: o.extraInputs,
  };
}

/** What the body finally asks for (extra inputs may override the synthetic OSL). */
function readRequestedOutput(payload: Readonly<Record<string, unknown>>): number | undefined {
  for (const key of ["max_completion_tokens", "max_tokens", "max_output_tokens"]) {
    const v = payload[key];
    if (typeof v === "number") return v;
  }
  return undefined;
}
