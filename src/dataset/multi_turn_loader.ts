/**
 * AIPerf's `multi_turn` JSONL format: one conversation per line.
 *
 * ```jsonl
 * {"session_id": "s1", "turns": [{"text": "Hi"}, {"text": "And then?", "delay": 1000}]}
 * {"turns": [{"role": "system", "text": "Be brief."}, {"text": "What is TCP?", "output_length": 50}]}
 * ```
 *
 * `turns` is a non-empty list of single_turn objects (`text`/`texts`, `role`, `output_length`, `extra`, `model`,
 * `delay` or `timestamp`; see `single_turn_loader.ts`). A leading text-only `role: "system"` turn becomes the
 * conversation's system message, unless it is the only turn or another system turn follows it (as AIPerf). Lines
 * sharing a `session_id` are one conversation, their turns in file order; lines without one get `session_<n>`.
 * Later turns are sent with the earlier ones and the server's real replies (`deltas_without_responses`).
 */
import type { Conversation, Dataset, Turn } from "./conversation.ts";
import { DatasetError } from "./dataset_error.ts";
import type { DatasetLoader, LoaderContext } from "./dataset_loader.ts";
import { describeJson, field, isObject, type JsonRecord, readJsonRecords, recordError } from "./json_record.ts";
import { parseSingleTurnRecord, SINGLE_TURN_FIELDS } from "./single_turn_loader.ts";
import { UnknownFields } from "./unknown_fields.ts";
import { MULTI_TURN_FORMAT } from "./dataset_formats.ts";

export const MULTI_TURN = MULTI_TURN_FORMAT.name;

export function canLoadMultiTurn(record: unknown): boolean {
  if (!isObject(record)) return false;
  const type = field(record, "type");
  if (type !== undefined && type !== MULTI_TURN) return false;
  const turns = field(record, "turns");
  // Turns with chat `messages` or branches are an agent DAG's (dag_jsonl), never single_turn objects.
  return Array.isArray(turns) && turns.length > 0 && turns.every(isObject) &&
    !turns.some((t) => "messages" in t || "forks" in t || "spawns" in t);
}

interface Session {
  readonly id: string;
  readonly turns: Turn[];
}

/** Fields of a multi_turn line itself; its turns have single_turn's. */
const MULTI_TURN_FIELDS = ["session_id", "turns", "type"];

interface FieldChecks {
  readonly line: UnknownFields;
  readonly turn: UnknownFields;
}

function parseLine(path: string, at: JsonRecord, fields?: FieldChecks): { sessionId?: string; turns: Turn[] } {
  const record = at.record;
  if (!isObject(record)) {
    throw recordError(path, at, `expected a JSON object with "turns" (got ${describeJson(record)})`);
  }
  fields?.line.check(record, path, at.line);
  const type = field(record, "type");
  if (type !== undefined && type !== MULTI_TURN) {
    throw recordError(path, at, `"type" is ${describeJson(type)} but this file is read as ${MULTI_TURN}`);
  }
  const list = field(record, "turns");
  if (!Array.isArray(list) || list.length === 0) {
    throw recordError(path, at, `expected "turns", a non-empty list of turn objects (got ${describeJson(list)})`);
  }
  const turns = list.map((item, i) => {
    try {
      const { turn } = parseSingleTurnRecord(stripType(item), path, at.line, fields?.turn, `"turns"[${i}]`);
      return turn;
    } catch (error) {
      if (error instanceof DatasetError) throw recordError(path, at, `"turns"[${i}]: ${error.reason}`);
      throw error;
    }
  });
  const sessionId = field(record, "session_id");
  if (sessionId !== undefined && (typeof sessionId !== "string" || sessionId === "")) {
    throw recordError(path, at, `"session_id" must be a non-empty string (got ${describeJson(sessionId)})`);
  }
  return sessionId === undefined ? { turns } : { sessionId: sessionId as string, turns };
}

/** A turn inside `turns` may not name a format of its own; the line's format is multi_turn. */
function stripType(item: unknown): unknown {
  if (!isObject(item) || !("type" in item)) return item;
  const { type: _type, ...rest } = item;
  return rest;
}

export async function loadMultiTurn(path: string, ctx?: LoaderContext): Promise<Dataset> {
  const sessions: Session[] = [];
  const byId = new Map<string, Session>();
  let unnamed = 0;
  const options = { strict: ctx?.strict, warn: ctx?.warn };
  const fields: FieldChecks = {
    line: new UnknownFields(MULTI_TURN, MULTI_TURN_FIELDS, options),
    turn: new UnknownFields(`a ${MULTI_TURN} turn`, SINGLE_TURN_FIELDS, options),
  };
  for await (const at of readJsonRecords(path, { signal: ctx?.signal })) {
    const { sessionId, turns } = parseLine(path, at, fields);
    const existing = sessionId === undefined ? undefined : byId.get(sessionId);
    if (existing !== undefined) {
      existing.turns.push(...turns);
      continue;
    }
    let id = sessionId;
    if (id === undefined) {
      do id = `session_${unnamed++}`; while (byId.has(id));
    }
    const session = { id, turns: [...turns] };
    byId.set(id, session);
    sessions.push(session);
  }
  if (sessions.length === 0) {
    throw new DatasetError(path, undefined, 'has no records; write one conversation ({"turns": [...]}) per line');
  }
  const conversations = sessions.map(({ id, turns }): Conversation => {
    const first = turns[0];
    const hoist = turns.length > 1 && first.role === "system" && turns[1].role !== "system" &&
      first.texts.length === 1;
    return hoist ? { id, turns: turns.slice(1), systemMessage: first.texts[0] } : { id, turns };
  });
  return { conversations, defaultSampling: "sequential", source: "file", format: MULTI_TURN };
}

export const multiTurnLoader: DatasetLoader = {
  ...MULTI_TURN_FORMAT,
  canLoad: canLoadMultiTurn,
  load: loadMultiTurn,
};
