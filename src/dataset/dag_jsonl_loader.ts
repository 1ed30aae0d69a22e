/**
 * AIPerf's `dag_jsonl` format: agent conversations whose turns start sub-agent conversations, one conversation per
 * line.
 *
 * ```jsonl
 * {"session_id": "lead", "turns": [
 *   {"messages": [{"role": "system", "content": "Plan."}, {"role": "user", "content": "Fix the bug."}],
 *    "spawns": ["search-a", "search-b"]},
 *   {"messages": [{"role": "user", "content": "Summarise what they found."}], "forks": ["review"]}]}
 * {"session_id": "search-a", "turns": [{"messages": [{"role": "user", "content": "Search src/."}], "max_tokens": 64}]}
 * {"session_id": "search-b", "turns": [{"messages": [{"role": "user", "content": "Search tests/."}], "delay": 200}]}
 * {"session_id": "review", "turns": [{"messages": [{"role": "user", "content": "Review the fix."}]}]}
 * ```
 *
 * A turn holds `messages` (chat messages as written, appended to the conversation so far with the server's real
 * replies), optional `model`, `max_tokens`, `tools`, `extra` (merged into the body) and `delay` (ms before it is
 * sent, after the previous answer; on a child's first turn, after the answer that started it), and the structure:
 * - `spawns`: children started with a fresh context once the turn is answered. Bare ids are joined by the next
 *   turn (none when it is the last); `{"children": [...], "join_at": k}` is joined by turn k instead, and the turns
 *   between go on meanwhile.
 * - `forks`: children started with this conversation so far (its replies included). A bare id ends the parent (it
 *   must be on the last turn); `{"child": id, "background": true}` lets the parent go on, unjoined.
 * A line may also give `context_mode` (`message_array_with_responses`: every turn is sent as written, alone),
 * `pre_session_spawns` (children started before its first turn, unjoined), or be a request-free `orchestrator` with
 * conversation-level `spawns` (fired once) or `rounds` (an integer repeating those spawns, or a list of
 * `{"spawns": [...], "think_time_ms": t}`), each round waiting `think_time_ms` (lognormal with `think_time_sigma`,
 * clamped to `think_time_min_ms`/`think_time_max_ms`) after the previous round's children all ended.
 *
 * Conversations that no branch names are the roots sessions are drawn from (randomly by default, as AIPerf); the
 * others run only as children. Unknown fields, unknown or doubly forked children, cycles, joins out of range, a
 * foreground fork before the last turn, and a `system` message past the start of a conversation's context are
 * errors naming file:line, as AIPerf rejects them at load.
 */
import type { ContextMode, Conversation, Dataset, Spawn, ThinkTimeSpread, Turn } from "./conversation.ts";
import { DatasetError } from "./dataset_error.ts";
import type { DatasetLoader, LoaderContext } from "./dataset_loader.ts";
import { describeJson, field, isObject, type JsonRecord, readJsonRecords, recordError } from "./json_record.ts";
import { messageText } from "./message_text.ts";
import { UnknownFields } from "./unknown_fields.ts";
import { DAG_JSONL_FORMAT } from "./dataset_formats.ts";

export const DAG_JSONL = DAG_JSONL_FORMAT.name;

const LINE_FIELDS = [
  "session_id",
  "turns",
  "orchestrator",
  "spawns",
  "think_time_ms",
  "think_time_sigma",
  "think_time_min_ms",
  "think_time_max_ms",
  "rounds",
  "context_mode",
  "pre_session_spawns",
];
const TURN_FIELDS = ["messages", "model", "max_tokens", "tools", "extra", "forks", "spawns", "delay"];
const FORK_FIELDS = ["child", "background"];
const SPAWN_FIELDS = ["children", "join_at"];
const ROUND_FIELDS = ["spawns", "think_time_ms"];
const CONTEXT_MODES: readonly ContextMode[] = ["deltas_without_responses", "message_array_with_responses"];

/** Structurally a DAG line: `session_id`, and turns of which one has `messages`, `forks` or `spawns` (as AIPerf). */
export function canLoadDagJsonl(record: unknown): boolean {
  if (!isObject(record) || typeof record.session_id !== "string") return false;
  const turns = record.turns;
  if (!Array.isArray(turns) || turns.length === 0 || !turns.every(isObject)) return false;
  return turns.some((t) => Array.isArray(t.messages) || "forks" in t || "spawns" in t);
}

interface Fork {
  readonly child: string;
  readonly background: boolean;
}

interface SpawnGroup {
  readonly children: readonly string[];
  readonly joinAt?: number;
}

/** One line as written, before its branches are resolved against the others. */
interface DagLine {
  readonly id: string;
  readonly line: number;
  readonly turns: Turn[];
  readonly forks: readonly (readonly Fork[])[];
  readonly spawns: readonly (readonly SpawnGroup[])[];
  readonly preSpawns: readonly string[];
  readonly contextMode?: ContextMode;
  readonly thinkTime?: ThinkTimeSpread;
  readonly orchestrator: boolean;
}

class LineReader {
  readonly #path: string;
  readonly #at: JsonRecord;
  readonly #fields: Readonly<Record<string, UnknownFields>>;
  constructor(path: string, at: JsonRecord, fields: Readonly<Record<string, UnknownFields>>) {
    this.#path = path;
    this.#at = at;
    this.#fields = fields;
  }
  fail(reason: string): never {
    throw recordError(this.#path, this.#at, reason);
  }
  check(kind: string, record: Record<string, unknown>, where: string): void {
    this.#fields[kind].check(record, this.#path, this.#at.line, where);
  }
  ids(value: unknown, where: string, nonEmpty = false): string[] {
    if (value === undefined) return [];
    if (!Array.isArray(value) || (nonEmpty && value.length === 0)) {
      this.fail(`${where} must be a ${nonEmpty ? "non-empty " : ""}list of session ids (got ${describeJson(value)})`);
    }
    return value.map((v, i) => {
      if (typeof v !== "string" || v === "") {
        this.fail(`${where}[${i}] must be a non-empty session id (got ${describeJson(v)})`);
      }
      return v;
    });
  }
  number(
    record: Record<string, unknown>,
    name: string,
    where: string,
    min: number,
    strict = false,
  ): number | undefined {
    const v = field(record, name);
    if (v === undefined) return undefined;
    if (typeof v !== "number" || !Number.isFinite(v) || (strict ? v <= min : v < min)) {
      this.fail(`${where}"${name}" must be a number ${strict ? ">" : "≥"} ${min} (got ${describeJson(v)})`);
    }
    return v;
  }
}

function parseTurn(r: LineReader, item: unknown, i: number): { turn: Turn; forks: Fork[]; spawns: SpawnGroup[] } {
  const where = `"turns"[${i}]`;
  if (!isObject(item)) r.fail(`${where} must be an object with "messages" (got ${describeJson(item)})`);
  r.check("turn", item, where);
  const messages = field(item, "messages");
  if (!Array.isArray(messages) || messages.length === 0) {
    r.fail(`${where}."messages" must be a non-empty list of chat messages (got ${describeJson(messages)})`);
  }
  messages.forEach((m, j) => {
    if (!isObject(m) || !("role" in m)) {
      r.fail(`${where}."messages"[${j}] must be an object with a "role" (got ${describeJson(m)})`);
    }
  });
  const written = messages as Record<string, unknown>[];
  const turn: { -readonly [K in keyof Turn]: Turn[K] } = {
    texts: [written.map(messageText).filter((t) => t.length > 0).join("\n")],
    messages: written,
  };
  const model = field(item, "model");
  if (model !== undefined) {
    if (typeof model !== "string" || model === "") r.fail(`${where}."model" must be a non-empty string`);
    turn.model = model;
  }
  const maxTokens = field(item, "max_tokens");
  if (maxTokens !== undefined) {
    if (typeof maxTokens !== "number" || !Number.isInteger(maxTokens) || maxTokens < 1) {
      r.fail(`${where}."max_tokens" must be an integer ≥ 1 (got ${describeJson(maxTokens)})`);
    }
    turn.maxTokens = maxTokens;
  }
  const tools = field(item, "tools");
  if (tools !== undefined) {
    if (!Array.isArray(tools) || !tools.every(isObject)) {
      r.fail(`${where}."tools" must be a list of tool definitions (objects) (got ${describeJson(tools)})`);
    }
    turn.tools = tools;
  }
  const extra = field(item, "extra");
  if (extra !== undefined) {
    if (!isObject(extra)) r.fail(`${where}."extra" must be an object of request fields (got ${describeJson(extra)})`);
    turn.extra = extra;
  }
  const delay = r.number(item, "delay", `${where}.`, 0);
  if (delay !== undefined && delay > 0) turn.delayMs = delay;
  const forks = listOf(r, field(item, "forks"), `${where}."forks"`).map((f, j): Fork => {
    const at = `${where}."forks"[${j}]`;
    if (typeof f === "string" && f !== "") return { child: f, background: false };
    if (!isObject(f)) {
      r.fail(`${at} must be a session id or {"child": id, "background": bool} (got ${describeJson(f)})`);
    }
    r.check("fork", f, at);
    const child = field(f, "child");
    if (typeof child !== "string" || child === "") r.fail(`${at}."child" must be a non-empty session id`);
    const background = field(f, "background") ?? false;
    if (typeof background !== "boolean") r.fail(`${at}."background" must be true or false`);
    return { child, background };
  });
  // Bare ids in a row are one group joined by the next turn; each object is a group of its own.
  const spawns: SpawnGroup[] = [];
  let bare: string[] = [];
  listOf(r, field(item, "spawns"), `${where}."spawns"`).forEach((s, j) => {
    const at = `${where}."spawns"[${j}]`;
    if (typeof s === "string" && s !== "") {
      bare.push(s);
      return;
    }
    if (!isObject(s)) {
      r.fail(`${at} must be a session id or {"children": [...], "join_at": k} (got ${describeJson(s)})`);
    }
    r.check("spawn", s, at);
    if (bare.length > 0) spawns.push({ children: bare });
    bare = [];
    const children = r.ids(field(s, "children"), `${at}."children"`, true);
    const joinAt = field(s, "join_at");
    if (joinAt !== undefined && (typeof joinAt !== "number" || !Number.isInteger(joinAt))) {
      r.fail(`${at}."join_at" must be a turn index (got ${describeJson(joinAt)})`);
    }
    spawns.push(joinAt === undefined ? { children } : { children, joinAt: joinAt as number });
  });
  if (bare.length > 0) spawns.push({ children: bare });
  return { turn, forks, spawns };
}

function listOf(r: LineReader, value: unknown, where: string): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) r.fail(`${where} must be a list (got ${describeJson(value)})`);
  return value;
}

function parseLine(r: LineReader, record: unknown): DagLine {
  if (!isObject(record)) r.fail(`expected a JSON object with "session_id" and "turns" (got ${describeJson(record)})`);
  r.check("line", record, "");
  const id = field(record, "session_id");
  if (typeof id !== "string" || id === "") r.fail(`"session_id" must be a non-empty string (got ${describeJson(id)})`);
  const orchestrator = field(record, "orchestrator") ?? false;
  if (typeof orchestrator !== "boolean") r.fail(`"orchestrator" must be true or false`);
  const contextMode = field(record, "context_mode");
  if (contextMode !== undefined && !CONTEXT_MODES.includes(contextMode as ContextMode)) {
    r.fail(`"context_mode" must be one of ${CONTEXT_MODES.join(", ")} (got ${describeJson(contextMode)})`);
  }
  const think = {
    ms: r.number(record, "think_time_ms", "", 0),
    sigma: r.number(record, "think_time_sigma", "", 0, true),
    min: r.number(record, "think_time_min_ms", "", 0),
    max: r.number(record, "think_time_max_ms", "", 0),
  };
  if (think.sigma !== undefined && think.sigma > 10) r.fail(`"think_time_sigma" must be at most 10`);
  const preSpawns = r.ids(field(record, "pre_session_spawns"), `"pre_session_spawns"`);
  const duplicate = preSpawns.find((c, i) => preSpawns.indexOf(c) !== i);
  if (duplicate !== undefined) r.fail(`"pre_session_spawns" names '${duplicate}' twice`);
  const turnList = listOf(r, field(record, "turns"), `"turns"`);
  const spawnsHere = field(record, "spawns");
  const rounds = field(record, "rounds");
  const base = { id, line: 0, contextMode: contextMode as ContextMode | undefined, orchestrator, preSpawns };
  if (!orchestrator) {
    if (rounds !== undefined) {
      r.fail(`"rounds" is only valid on an orchestrator conversation (set "orchestrator": true)`);
    }
    if (spawnsHere !== undefined) {
      r.fail(`a conversation-level "spawns" is only valid on an orchestrator; a turn starts children with its own`);
    }
    if (turnList.length === 0) r.fail(`"turns" must be a non-empty list unless "orchestrator" is true`);
    if (Object.values(think).some((v) => v !== undefined)) {
      r.fail(`"think_time_*" are only valid on an orchestrator conversation with "rounds"`);
    }
    const parsed = turnList.map((t, i) => parseTurn(r, t, i));
    return {
      ...base,
      turns: parsed.map((p) => p.turn),
      forks: parsed.map((p) => p.forks),
      spawns: parsed.map((p) => p.spawns),
    };
  }
  if (turnList.length > 0) r.fail(`an orchestrator has no "turns" of its own (its request-free steps are built)`);
  if (preSpawns.length > 0) r.fail(`an orchestrator takes no "pre_session_spawns"; give its "spawns"`);
  if (think.ms !== undefined && rounds === undefined) r.fail(`"think_time_ms" needs "rounds"`);
  if (think.sigma !== undefined && think.ms === undefined) r.fail(`"think_time_sigma" needs "think_time_ms"`);
  if ((think.min !== undefined || think.max !== undefined) && think.sigma === undefined) {
    r.fail(`"think_time_min_ms"/"think_time_max_ms" need "think_time_sigma" (they clamp its draws)`);
  }
  if (think.min !== undefined && think.max !== undefined && think.min > think.max) {
    r.fail(`"think_time_min_ms" must be ≤ "think_time_max_ms"`);
  }
  const shared = r.ids(spawnsHere, `"spawns"`);
  let plan: { spawns: string[]; thinkMs: number }[] | undefined;
  if (Array.isArray(rounds)) {
    if (rounds.length === 0) r.fail(`"rounds" must be a non-empty list`);
    if (shared.length > 0) r.fail(`with a list of "rounds", each round names its own "spawns"; omit the shared ones`);
    const seen = new Set<string>();
    plan = rounds.map((round, k) => {
      const at = `"rounds"[${k}]`;
      if (!isObject(round)) r.fail(`${at} must be {"spawns": [...], "think_time_ms": t} (got ${describeJson(round)})`);
      r.check("round", round, at);
      const spawns = r.ids(field(round, "spawns"), `${at}."spawns"`, true);
      for (const c of spawns) {
        if (seen.has(c)) r.fail(`'${c}' is spawned by more than one round; each round needs children of its own`);
        seen.add(c);
      }
      return { spawns, thinkMs: r.number(round, "think_time_ms", `${at}.`, 0) ?? think.ms ?? 0 };
    });
  } else if (rounds !== undefined) {
    if (typeof rounds !== "number" || !Number.isInteger(rounds) || rounds < 1) {
      r.fail(`"rounds" must be an integer ≥ 1 or a list of rounds (got ${describeJson(rounds)})`);
    }
    if (shared.length === 0) r.fail(`an orchestrator needs a non-empty "spawns" (or a list of "rounds")`);
    plan = Array.from({ length: rounds }, () => ({ spawns: shared, thinkMs: think.ms ?? 0 }));
  } else if (shared.length === 0) {
    r.fail(`an orchestrator needs a non-empty "spawns" (or a list of "rounds")`);
  }
  const thinkTime: ThinkTimeSpread | undefined = think.sigma === undefined ? undefined : {
    sigma: think.sigma,
    ...(think.min === undefined ? {} : { minMs: think.min }),
    ...(think.max === undefined ? {} : { maxMs: think.max }),
  };
  if (plan === undefined) {
    // One request-free step firing the children, unjoined.
    return {
      ...base,
      turns: [{ texts: [], requestFree: true }],
      forks: [[]],
      spawns: [[{ children: shared }]],
    };
  }
  // Round k is a request-free step after its think time, joined by step k + 1; a last step ends the graph.
  const turns: Turn[] = plan.map((p) => ({
    texts: [],
    requestFree: true,
    ...(p.thinkMs > 0 ? { delayMs: p.thinkMs } : {}),
  }));
  turns.push({ texts: [], requestFree: true });
  return {
    ...base,
    turns,
    forks: turns.map(() => []),
    spawns: [...plan.map((p, k) => [{ children: p.spawns, joinAt: k + 1 }]), []],
    ...(thinkTime === undefined ? {} : { thinkTime }),
  };
}

/** Resolves every line's branches against the others and builds the conversations. */
function link(path: string, lines: readonly DagLine[]): Conversation[] {
  const byId = new Map(lines.map((l) => [l.id, l]));
  const fail = (l: DagLine, reason: string): never => {
    throw new DatasetError(path, l.line, reason);
  };
  const forkParent = new Map<string, { line: DagLine; turn: number }>();
  const referenced = new Set<string>();
  const target = (l: DagLine, turn: number | "pre", child: string) => {
    if (!byId.has(child)) {
      const known = [...byId.keys()].slice(0, 10).join(", ");
      fail(
        l,
        `session '${l.id}' ${
          turn === "pre" ? "pre_session_spawns" : `turn ${turn}`
        } names '${child}', which no line declares (known: ${known})`,
      );
    }
    referenced.add(child);
  };
  for (const l of lines) {
    for (const c of l.preSpawns) target(l, "pre", c);
    l.turns.forEach((_, k) => {
      const forks = l.forks[k];
      const spawns = l.spawns[k];
      const forked = new Set<string>();
      for (const f of forks) {
        if (forked.has(f.child)) fail(l, `session '${l.id}' turn ${k} forks '${f.child}' twice`);
        forked.add(f.child);
        target(l, k, f.child);
        const other = forkParent.get(f.child);
        if (other !== undefined) {
          fail(
            l,
            `'${f.child}' is forked by both '${other.line.id}' turn ${other.turn} and '${l.id}' turn ${k}; a fork's child has one parent`,
          );
        }
        forkParent.set(f.child, { line: l, turn: k });
      }
      if (forks.some((f) => !f.background) && k < l.turns.length - 1) {
        fail(
          l,
          `session '${l.id}' turn ${k} forks in the foreground but is not the last turn; fork from the last turn, or give the fork "background": true`,
        );
      }
      const spawned = new Set<string>();
      for (const g of spawns) {
        const inGroup = new Set<string>();
        for (const c of g.children) {
          if (inGroup.has(c)) fail(l, `session '${l.id}' turn ${k} names '${c}' twice in one spawn group`);
          if (spawned.has(c)) fail(l, `session '${l.id}' turn ${k} names '${c}' in two spawn groups`);
          inGroup.add(c);
          target(l, k, c);
        }
        for (const c of inGroup) spawned.add(c);
        if (g.joinAt !== undefined && (g.joinAt <= k || g.joinAt >= l.turns.length)) {
          fail(
            l,
            `session '${l.id}' turn ${k}: "join_at" ${g.joinAt} must be after the spawning turn and before the conversation's end (it has ${l.turns.length} turns)`,
          );
        }
      }
    });
  }
  for (const l of lines) {
    const pre = l.preSpawns.find((c) => forkParent.has(c));
    if (pre !== undefined) {
      fail(
        l,
        `'${pre}' is started before '${l.id}' begins and is also a fork's child; a child started before its parent has no context to inherit`,
      );
    }
    const parent = forkParent.get(l.id);
    if (parent !== undefined && l.contextMode === "message_array_with_responses") {
      fail(
        l,
        `'${l.id}' is a fork's child and sends each turn alone ("context_mode": "message_array_with_responses"), which would drop the context it inherits; make it a spawn`,
      );
    }
    if (l.preSpawns.length > 0 && referenced.has(l.id)) {
      fail(
        l,
        `'${l.id}' has "pre_session_spawns" but is itself a child; only a root conversation may start children before its first turn`,
      );
    }
    checkSystemPlacement(l, parent !== undefined, fail);
  }
  checkAcyclic(lines, byId, fail);
  if (lines.every((l) => referenced.has(l.id))) {
    throw new DatasetError(path, undefined, "has no root conversation: every session is some branch's child");
  }
  return lines.map((l): Conversation => {
    const turns = l.turns.map((turn, k): Turn => {
      const spawns: Spawn[] = [];
      const fg = l.forks[k].filter((f) => !f.background).map((f) => f.child);
      const bg = l.forks[k].filter((f) => f.background).map((f) => f.child);
      if (fg.length > 0) spawns.push({ children: fg, inheritContext: true });
      if (bg.length > 0) spawns.push({ children: bg, inheritContext: true });
      for (const g of l.spawns[k]) {
        // A bare spawn is joined by the next turn; none follows the last.
        const joinAt = g.joinAt ?? k + 1;
        spawns.push(joinAt < l.turns.length ? { children: g.children, joinAt } : { children: g.children });
      }
      return spawns.length === 0 ? turn : { ...turn, spawns };
    });
    return {
      id: l.id,
      turns,
      contextMode: l.contextMode ?? "deltas_without_responses",
      ...(referenced.has(l.id) ? { child: true } : {}),
      ...(l.preSpawns.length > 0 ? { spawnsFirst: [{ children: l.preSpawns }] } : {}),
      ...(l.thinkTime === undefined ? {} : { thinkTime: l.thinkTime }),
    };
  });
}

/**
 * A `system` message goes at the start of a conversation's context: only in the first turn of a root (or of a
 * spawn's child); each turn of a `message_array_with_responses` conversation is its own context, whose first message
 * it may be. Chat templates drop system messages anywhere else.
 */
function checkSystemPlacement(l: DagLine, forked: boolean, fail: (l: DagLine, reason: string) => never): void {
  l.turns.forEach((turn, k) => {
    (turn.messages ?? []).forEach((m, j) => {
      if (m.role !== "system") return;
      if (l.contextMode === "message_array_with_responses") {
        if (j !== 0) {
          fail(l, `session '${l.id}' turn ${k}: a "system" message must be the first of its turn's messages`);
        }
      } else if (k > 0 || forked) {
        fail(
          l,
          `session '${l.id}' turn ${k}: only the first turn of a root conversation may carry a "system" message (chat templates drop it later in the conversation)`,
        );
      }
    });
  });
}

function checkAcyclic(
  lines: readonly DagLine[],
  byId: ReadonlyMap<string, DagLine>,
  fail: (l: DagLine, reason: string) => never,
): void {
  const children = (l: DagLine) => [
    ...l.preSpawns,
    ...l.forks.flatMap((fs) => fs.map((f) => f.child)),
    ...l.spawns.flatMap((gs) => gs.flatMap((g) => g.children)),
  ];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (l: DagLine) => {
    const at = path.indexOf(l.id);
    if (at >= 0) fail(l, `cycle: ${[...path.slice(at), l.id].join(" -> ")}`);
    if (done.has(l.id)) return;
    path.push(l.id);
    for (const c of children(l)) visit(byId.get(c)!);
    path.pop();
    done.add(l.id);
  };
  for (const l of lines) visit(l);
}

export async function loadDagJsonl(path: string, ctx?: LoaderContext): Promise<Dataset> {
  const strict = { strict: true };
  const fields = {
    line: new UnknownFields(DAG_JSONL, LINE_FIELDS, strict),
    turn: new UnknownFields(`a ${DAG_JSONL} turn`, TURN_FIELDS, strict),
    fork: new UnknownFields(`a ${DAG_JSONL} fork`, FORK_FIELDS, strict),
    spawn: new UnknownFields(`a ${DAG_JSONL} spawn`, SPAWN_FIELDS, strict),
    round: new UnknownFields(`a ${DAG_JSONL} round`, ROUND_FIELDS, strict),
  };
  const lines: DagLine[] = [];
  const seen = new Map<string, number>();
  for await (const at of readJsonRecords(path, { signal: ctx?.signal })) {
    const parsed = { ...parseLine(new LineReader(path, at, fields), at.record), line: at.line };
    const earlier = seen.get(parsed.id);
    if (earlier !== undefined) {
      throw recordError(path, at, `session_id '${parsed.id}' was already declared on line ${earlier}`);
    }
    seen.set(parsed.id, at.line);
    lines.push(parsed);
  }
  if (lines.length === 0) {
    throw new DatasetError(
      path,
      undefined,
      'has no records; write one conversation ({"session_id", "turns"}) per line',
    );
  }
  return { conversations: link(path, lines), defaultSampling: "random", source: "file", format: DAG_JSONL };
}

export const dagJsonlLoader: DatasetLoader = {
  ...DAG_JSONL_FORMAT,
  canLoad: canLoadDagJsonl,
  load: loadDagJsonl,
  describe(dataset) {
    const children = dataset.conversations.filter((c) => c.child === true).length;
    const roots = dataset.conversations.length - children;
    return `${roots} root conversation${roots === 1 ? "" : "s"}, ${children} child conversation${
      children === 1 ? "" : "s"
    }`;
  },
};
