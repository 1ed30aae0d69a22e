/**
 * AIPerf's `single_turn` JSONL format (`reference/aiperf.md` §5.3): one request per line.
 *
 * ```jsonl
 * {"text": "What is deep learning?"}
 * {"texts": ["Who are you?", "Hello world"], "output_length": 64, "extra": {"temperature": 0}}
 * {"texts": [{"name": "query", "contents": ["a", "b"]}], "role": "user", "model": "m2"}
 * {"session_id": "s1", "delay": 500, "text": "first"}
 * {"session_id": "s1", "timestamp": 1000, "text": "second"}
 * ```
 *
 * Fields (null = absent): `text` (string) or `texts` (strings and/or `{name, contents: [strings]}` objects, flattened
 * in order; not both), `role`, `output_length` (positive integer → `maxTokens`), `extra` (object merged into the
 * request body), `timestamp` or `delay` (ms, ≥ 0; not both), `session_id`, `model`, and an optional
 * `type: "single_turn"`, and the media fields `image`/`images`, `audio`/`audios`, `video`/`videos` (URLs, data URLs or
 * local files, `media_inputs.ts`; the single and the list form of a kind not both). Other fields are ignored.
 * `image_uuids` (vLLM's multimodal cache ids) is refused as not supported yet.
 *
 * Each line becomes a one-turn conversation; lines sharing a `session_id` become the turns of one conversation,
 * in file order, sent one after another without history (as AIPerf does). Conversations keep the order of their
 * first line. Lines without a `session_id` get the id `line_<n>` (their line number). Empty lines are skipped.
 */
import type { Conversation, Dataset, Turn } from "./conversation.ts";
import { DatasetError } from "./dataset_error.ts";
import type { DatasetLoader, LoaderContext } from "./dataset_loader.ts";
import { describeJson, field, isObject, readJsonRecords, recordError } from "./json_record.ts";
import { MEDIA_FIELD_PAIRS, mediaItems } from "./media_inputs.ts";
import type { MediaItem } from "./conversation.ts";
import { UnknownFields } from "./unknown_fields.ts";
import { SINGLE_TURN_FORMAT } from "./dataset_formats.ts";

export { describeJson, parseJsonLine } from "./json_record.ts";

export const SINGLE_TURN = SINGLE_TURN_FORMAT.name;

/** Every field a single_turn line (or a turn of multi_turn) may have. */
export const SINGLE_TURN_FIELDS: readonly string[] = [
  "text",
  "texts",
  "role",
  "output_length",
  "extra",
  "timestamp",
  "delay",
  "session_id",
  "model",
  "type",
  "image_uuids",
  ...MEDIA_FIELD_PAIRS.flatMap(([, one, many]) => [one, many]),
];

/** A parsed line: its turn and the session it belongs to, if any. */
export interface SingleTurnRecord {
  readonly sessionId?: string;
  readonly turn: Turn;
}

/**
 * Validate one parsed line.
 *
 * @throws {DatasetError} naming `file:line` and the first problem found.
 */
export function parseSingleTurnRecord(
  record: unknown,
  file: string,
  line: number,
  fields?: UnknownFields,
  where?: string,
): SingleTurnRecord {
  const fail = (reason: string): never => {
    throw new DatasetError(file, line, reason);
  };
  if (!isObject(record)) {
    return fail(`expected a JSON object with "text" or "texts" (got ${describeJson(record)})`);
  }
  fields?.check(record, file, line, where);
  const type = field(record, "type");
  if (type !== undefined && type !== SINGLE_TURN) {
    fail(
      `"type" is ${
        describeJson(type)
      } but this file is read as ${SINGLE_TURN}; remove "type" or set it to "${SINGLE_TURN}"`,
    );
  }
  if (field(record, "image_uuids") !== undefined) {
    fail(`"image_uuids" is not supported yet; remove it (the images are sent in full)`);
  }
  const media: MediaItem[] = [];
  for (const [kind, single, list] of MEDIA_FIELD_PAIRS) {
    const one = field(record, single);
    const many = field(record, list);
    if (one !== undefined && many !== undefined) fail(`"${single}" and "${list}" cannot both be set; keep one of them`);
    const value = one ?? many;
    if (value === undefined) continue;
    if (one !== undefined && typeof one !== "string") fail(`"${single}" must be a string (got ${describeJson(one)})`);
    const items = mediaItems(kind, one !== undefined ? single : list, value, file);
    if (typeof items === "string") fail(items);
    media.push(...(items as MediaItem[]));
  }

  const text = field(record, "text");
  const textList = field(record, "texts");
  if (text !== undefined && textList !== undefined) fail(`"text" and "texts" cannot both be set; keep one of them`);
  let texts: string[];
  if (text !== undefined) {
    if (typeof text !== "string") fail(`"text" must be a string (got ${describeJson(text)})`);
    if (text === "") fail(`"text" is empty; give every line a non-empty prompt`);
    texts = [text as string];
  } else if (textList !== undefined) {
    texts = parseTexts(textList, fail);
  } else if (media.length > 0) {
    texts = [];
  } else {
    return fail(`expected "text" or "texts" with the prompt (found neither)`);
  }

  const turn: { -readonly [K in keyof Turn]: Turn[K] } = media.length > 0 ? { texts, media } : { texts };
  const role = field(record, "role");
  if (role !== undefined) {
    if (typeof role !== "string" || role === "") fail(`"role" must be a non-empty string (got ${describeJson(role)})`);
    turn.role = role as string;
  }
  const outputLength = field(record, "output_length");
  if (outputLength !== undefined) {
    if (typeof outputLength !== "number" || !Number.isInteger(outputLength) || outputLength < 1) {
      fail(`"output_length" must be a positive integer (got ${describeJson(outputLength)})`);
    }
    turn.maxTokens = outputLength as number;
  }
  const extra = field(record, "extra");
  if (extra !== undefined) {
    if (!isObject(extra)) fail(`"extra" must be an object of request-body fields (got ${describeJson(extra)})`);
    turn.extra = extra as Record<string, unknown>;
  }
  const model = field(record, "model");
  if (model !== undefined) {
    if (typeof model !== "string" || model === "") {
      fail(`"model" must be a non-empty string (got ${describeJson(model)})`);
    }
    turn.model = model as string;
  }
  const timestamp = field(record, "timestamp");
  const delay = field(record, "delay");
  if (timestamp !== undefined && delay !== undefined) {
    fail(`"timestamp" and "delay" cannot both be set; keep one of them`);
  }
  if (timestamp !== undefined) turn.timestampMs = milliseconds("timestamp", timestamp, fail);
  if (delay !== undefined) turn.delayMs = milliseconds("delay", delay, fail);

  const sessionId = field(record, "session_id");
  if (sessionId !== undefined && (typeof sessionId !== "string" || sessionId === "")) {
    fail(`"session_id" must be a non-empty string (got ${describeJson(sessionId)})`);
  }
  return sessionId === undefined ? { turn } : { sessionId: sessionId as string, turn };
}

function milliseconds(name: string, value: unknown, fail: (reason: string) => never): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    fail(`"${name}" must be a number of milliseconds ≥ 0 (got ${describeJson(value)})`);
  }
  return value as number;
}

function parseTexts(value: unknown, fail: (reason: string) => never): string[] {
  if (!Array.isArray(value) || value.length === 0) {
    return fail(
      `"texts" must be a non-empty list of strings or {"name", "contents"} objects (got ${describeJson(value)})`,
    );
  }
  const texts: string[] = [];
  value.forEach((item, i) => {
    if (typeof item === "string") {
      texts.push(item);
      return;
    }
    if (!isObject(item)) {
      fail(`"texts"[${i}] must be a string or a {"name", "contents"} object (got ${describeJson(item)})`);
    }
    const entry = item as Record<string, unknown>;
    const name = field(entry, "name");
    if (name !== undefined && typeof name !== "string") {
      fail(`"texts"[${i}].name must be a string (got ${describeJson(name)})`);
    }
    const contents = field(entry, "contents");
    if (!Array.isArray(contents)) {
      fail(`"texts"[${i}].contents must be a list of strings (got ${describeJson(contents)})`);
    }
    (contents as unknown[]).forEach((content, j) => {
      if (typeof content !== "string") {
        fail(`"texts"[${i}].contents[${j}] must be a string (got ${describeJson(content)})`);
      }
      texts.push(content as string);
    });
  });
  if (texts.length === 0) fail(`"texts" holds no text; give every line at least one prompt`);
  return texts;
}

/**
 * Read a `single_turn` JSONL file, streaming it line by line.
 *
 * @throws {DatasetError} for an unreadable or empty file and for every malformed line (the first one found).
 */
export async function loadSingleTurn(path: string, ctx?: LoaderContext): Promise<Dataset> {
  interface Session {
    id: string | undefined;
    readonly line: number;
    readonly turns: Turn[];
  }
  const sessions: Session[] = [];
  const byId = new Map<string, Session>();
  const fields = new UnknownFields(SINGLE_TURN, SINGLE_TURN_FIELDS, { strict: ctx?.strict, warn: ctx?.warn });
  for await (const at of readJsonRecords(path, { signal: ctx?.signal })) {
    let parsed: SingleTurnRecord;
    try {
      parsed = parseSingleTurnRecord(at.record, path, at.line, fields);
    } catch (error) {
      throw error instanceof DatasetError && error.line === at.line ? recordError(path, at, error.reason) : error;
    }
    const { sessionId, turn } = parsed;
    const number = at.line;
    if (sessionId === undefined) {
      sessions.push({ id: undefined, line: number, turns: [turn] });
      continue;
    }
    const existing = byId.get(sessionId);
    if (existing !== undefined) existing.turns.push(turn);
    else {
      const session: Session = { id: sessionId, line: number, turns: [turn] };
      byId.set(sessionId, session);
      sessions.push(session);
    }
  }
  if (sessions.length === 0) {
    throw new DatasetError(path, undefined, "has no records; write one JSON object per line");
  }
  const conversations: Conversation[] = sessions.map((session) => {
    let id = session.id;
    if (id === undefined) {
      id = `line_${session.line}`;
      for (let k = 2; byId.has(id); k++) id = `line_${session.line}_${k}`;
    }
    // Lines of one session are sent in order, each as written: no history is added (AIPerf).
    return session.turns.length > 1
      ? { id, turns: session.turns, contextMode: "message_array_with_responses" }
      : { id, turns: session.turns };
  });
  return { conversations, defaultSampling: "sequential", source: "file", format: SINGLE_TURN };
}

/** Structural check for auto-detection: an object with a text field (or media), no `turns`, no foreign `type`. */
export function canLoadSingleTurn(record: unknown): boolean {
  if (!isObject(record)) return false;
  if (field(record, "turns") !== undefined) return false;
  const type = field(record, "type");
  if (type !== undefined && type !== SINGLE_TURN) return false;
  if (field(record, "text") !== undefined || field(record, "texts") !== undefined) return true;
  return MEDIA_FIELD_PAIRS.some(([, one, many]) =>
    field(record, one) !== undefined || field(record, many) !== undefined
  );
}

export const singleTurnLoader: DatasetLoader = {
  ...SINGLE_TURN_FORMAT,
  canLoad: canLoadSingleTurn,
  load: loadSingleTurn,
};
