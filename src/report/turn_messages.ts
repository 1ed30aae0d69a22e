/**
 * The messages each turn of a run sent, as a collapsible page (AIPerf's `analyze turn-messages`): conversation →
 * turn → message, read from the raw export (`--export-level raw`: `profile_export_raw.jsonl`, or AIPerf's
 * `raw_records/*.jsonl` shards). Each record is one turn's request; its `payload.messages` is the chat array it sent.
 *
 * As AIPerf builds it: a conversation replayed by several sessions (`x_correlation_id`) is shown once per replay
 * ("· replay 2"); conversations are ordered roots first, then by their first request, and capped
 * (`--limit-conversations`); turns by index, capped per conversation (`--max-turns`, the rest counted); every
 * distinct (role, body) is stored once and referenced by id, since each turn resends the history; a body longer than
 * `--content-cap` characters is cut, with the number of characters left out. Plain string contents stay readable;
 * structured contents, tool calls and other fields are shown as JSON. The tree is gzip-compressed and base64-inlined,
 * and the page builds a conversation's turns only when it is opened (no network: the browser's own gzip decoder).
 */
import { ReportError } from "./report_error.ts";
import { runManifest } from "./run_files.ts";

export interface TurnMessagesOptions {
  readonly limitConversations: number;
  readonly maxTurns: number;
  readonly contentCap: number;
}

interface FlatRecord {
  readonly conv: string;
  readonly turn: number | null;
  readonly depth: number;
  readonly xCorr?: string;
  readonly model?: string;
  readonly maxTokens?: number;
  readonly phase?: string;
  readonly cancelled: boolean;
  readonly error: boolean;
  readonly messages: readonly unknown[];
  readonly startNs: number;
  replay?: number;
}

/** The tree the page draws (AIPerf's payload: `stat`, `legend`, `msgs`, `convs`). */
export interface TurnMessagesPayload {
  readonly stat: string;
  readonly legend: readonly (readonly [string, number])[];
  readonly msgs: readonly { role: string; len: number; body: string; trunc: number }[];
  readonly convs: readonly Record<string, unknown>[];
}

/** The raw-record files of a run directory (or the file itself), in order. */
export async function rawRecordFiles(path: string): Promise<string[]> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch {
    return [];
  }
  if (info.isFile) return [path];
  const dir = path.replace(/\/+$/, "");
  const shards: string[] = [];
  try {
    for await (const e of Deno.readDir(`${dir}/raw_records`)) {
      if (e.isFile && e.name.endsWith(".jsonl")) shards.push(`${dir}/raw_records/${e.name}`);
    }
  } catch {
    // No shard folder: a single file.
  }
  if (shards.length > 0) return shards.sort();
  const manifest = await runManifest(dir);
  const named = manifest?.files.find((f) => f.role === "raw_jsonl")?.path ?? "profile_export_raw.jsonl";
  try {
    if ((await Deno.stat(`${dir}/${named}`)).isFile) return [`${dir}/${named}`];
  } catch {
    // Not written: the run was not raw.
  }
  return [];
}

function flatten(r: Record<string, unknown>): FlatRecord {
  const md = (typeof r.metadata === "object" && r.metadata !== null ? r.metadata : {}) as Record<string, unknown>;
  const pl = (typeof r.payload === "object" && r.payload !== null ? r.payload : {}) as Record<string, unknown>;
  const maxTokens = pl.max_completion_tokens ?? pl.max_tokens;
  return {
    conv: typeof md.conversation_id === "string" && md.conversation_id !== "" ? md.conversation_id : "(none)",
    turn: typeof md.turn_index === "number" ? md.turn_index : null,
    depth: typeof md.agent_depth === "number" ? md.agent_depth : 0,
    ...(typeof md.x_correlation_id === "string" && md.x_correlation_id !== "" ? { xCorr: md.x_correlation_id } : {}),
    ...(typeof pl.model === "string" ? { model: pl.model } : {}),
    ...(typeof maxTokens === "number" ? { maxTokens } : {}),
    ...(typeof md.benchmark_phase === "string" ? { phase: md.benchmark_phase } : {}),
    cancelled: md.was_cancelled === true,
    error: r.error !== undefined && r.error !== null,
    messages: Array.isArray(pl.messages) ? pl.messages : [],
    startNs: typeof md.request_start_ns === "number" ? md.request_start_ns : 0,
  };
}

/** Every record of the files; lines that are not JSON objects are skipped (as AIPerf does). */
export async function readRawRecords(files: readonly string[]): Promise<FlatRecord[]> {
  const out: FlatRecord[] = [];
  for (const file of files) {
    for (const line of (await Deno.readTextFile(file)).split("\n")) {
      if (line.trim() === "") continue;
      let r: unknown;
      try {
        r = JSON.parse(line);
      } catch {
        continue;
      }
      if (typeof r === "object" && r !== null && !Array.isArray(r)) out.push(flatten(r as Record<string, unknown>));
    }
  }
  return out;
}

/** A message as role and the body shown: plain string contents as they are, anything else as JSON. */
function displayMessage(m: unknown): [string, string] {
  if (typeof m !== "object" || m === null || Array.isArray(m)) {
    if (m === null || m === undefined) return ["?", ""];
    return ["?", typeof m === "string" ? m : JSON.stringify(m)];
  }
  const { role, ...rest } = m as Record<string, unknown>;
  const keys = Object.keys(rest);
  const content = rest.content;
  if (
    keys.every((k) => k === "content") && (content === undefined || content === null || typeof content === "string")
  ) {
    return [typeof role === "string" ? role : String(role ?? "?"), (content as string | null | undefined) ?? ""];
  }
  return [typeof role === "string" ? role : String(role ?? "?"), JSON.stringify(rest)];
}

function short(s: string | undefined, n: number): string {
  return (s || "?").slice(0, n);
}

/** A conversation id shortened where ids share a long prefix (`<trace>::sa:<id>` keeps its suffix). */
function displayId(conv: string): string {
  const at = conv.indexOf("::");
  return at >= 0 ? `${short(conv.slice(0, at), 10)}…${conv.slice(at)}` : `${short(conv, 20)}…`;
}

export function buildTurnMessages(
  records: FlatRecord[],
  files: number,
  o: TurnMessagesOptions,
): TurnMessagesPayload {
  const cap = Math.max(0, o.contentCap), limit = Math.max(0, o.limitConversations);
  const maxTurns = Math.max(0, o.maxTurns);
  const lanes = new Map<string, Map<string, number>>();
  const seenTurn = new Map<string, number>();
  for (const r of [...records].sort((a, b) => a.startNs - b.startNs)) {
    if (r.xCorr !== undefined) {
      const l = lanes.get(r.conv) ?? new Map<string, number>();
      lanes.set(r.conv, l);
      if (!l.has(r.xCorr)) l.set(r.xCorr, l.size);
      r.replay = l.get(r.xCorr)!;
    } else {
      const key = `${r.conv}\u0000${r.turn}`;
      r.replay = seenTurn.get(key) ?? 0;
      seenTurn.set(key, r.replay + 1);
    }
  }
  const byConv = new Map<string, FlatRecord[]>();
  for (const r of records) {
    const key = (r.replay ?? 0) === 0 ? r.conv : `${r.conv} · replay ${(r.replay ?? 0) + 1}`;
    const list = byConv.get(key) ?? [];
    byConv.set(key, list);
    list.push(r);
  }
  const minOf = (list: FlatRecord[], f: (r: FlatRecord) => number) => Math.min(...list.map(f));
  const order = [...byConv.keys()].sort((a, b) => {
    const A = byConv.get(a)!, B = byConv.get(b)!;
    return minOf(A, (r) => r.depth) - minOf(B, (r) => r.depth) ||
      minOf(A, (r) => r.startNs) - minOf(B, (r) => r.startNs) || (a < b ? -1 : a > b ? 1 : 0);
  });
  const shown = order.slice(0, limit);
  const roles = new Map<string, number>();
  let refs = 0;
  for (const r of records) {
    for (const m of r.messages) {
      const role = typeof m === "object" && m !== null && "role" in m ? String((m as { role: unknown }).role) : "?";
      roles.set(role, (roles.get(role) ?? 0) + 1);
      refs++;
    }
  }
  const intern = new Map<string, number>();
  const msgs: { role: string; len: number; body: string; trunc: number }[] = [];
  const convs = shown.map((key) => {
    let turns = [...byConv.get(key)!].sort((a, b) => (a.turn ?? 0) - (b.turn ?? 0) || a.startNs - b.startNs);
    const depth = minOf(turns, (r) => r.depth);
    const count = turns.length;
    const more = Math.max(0, count - maxTurns);
    turns = turns.slice(0, maxTurns);
    const lane = turns.find((r) => r.xCorr !== undefined)?.xCorr;
    const [baseId, replayTag = ""] = key.split(" · ");
    return {
      id: baseId,
      disp: displayId(baseId),
      kind: depth === 0 ? "root" : `subagent (depth ${depth})`,
      isRoot: depth === 0,
      // infermeter's sessions have no sub-agents, so no conversation has a parent.
      parent: null,
      lane: lane === undefined ? null : short(lane, 8),
      models: [...new Set(turns.map((r) => r.model ?? "?"))].sort().join(","),
      nt: count,
      moreTurns: more,
      replayTag,
      turns: turns.map((r) => ({
        ti: r.turn,
        phase: r.phase ?? null,
        maxTokens: r.maxTokens ?? null,
        cancelled: r.cancelled,
        error: r.error,
        ids: r.messages.map((m) => {
          const [role, body] = displayMessage(m);
          const k = `${role}\u0000${body}`;
          let id = intern.get(k);
          if (id === undefined) {
            id = msgs.length;
            intern.set(k, id);
            msgs.push({ role, len: body.length, body: body.slice(0, cap), trunc: Math.max(0, body.length - cap) });
          }
          return id;
        }),
      })),
    };
  });
  const n = (x: number) => x.toLocaleString("en-US");
  const turnCount = [...byConv.values()].reduce((a, l) => a + l.length, 0);
  return {
    stat: `${n(order.length)} conversations (${n(shown.length)} shown) · ${n(turnCount)} turns · ${n(refs)} message ` +
      `refs (${n(msgs.length)} unique) · from ${files} raw shard(s)`,
    legend: [...roles].sort((a, b) => b[1] - a[1]),
    msgs,
    convs,
  };
}

async function gzipBase64(text: string): Promise<string> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer()).toBase64();
}

/** Reads the data of the page back, as the page does (for tests). */
export async function decodePagePayload(html: string): Promise<TurnMessagesPayload> {
  const b64 = /<script type="application\/octet-stream" id="payload">([^<]*)<\/script>/.exec(html)?.[1];
  if (b64 === undefined) throw new ReportError("no payload in the page");
  const stream = new Blob([Uint8Array.fromBase64(b64)]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}

const VIEWER = `
(async function () {
  var b64 = document.getElementById("payload").textContent;
  var bytes = Uint8Array.from(atob(b64), function (c) { return c.charCodeAt(0); });
  var text = await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
  var data = JSON.parse(text);
  function el(tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
  document.getElementById("stat").textContent = data.stat;
  var legend = document.getElementById("legend");
  data.legend.forEach(function (r) { legend.appendChild(el("span", "role role-" + r[0], r[0] + " " + r[1].toLocaleString())); });
  var root = document.getElementById("convs");
  data.convs.forEach(function (c) {
    var d = el("details", "conv");
    var s = el("summary");
    s.appendChild(el("b", null, c.disp));
    s.appendChild(el("span", "meta", " " + c.kind + (c.replayTag ? " · " + c.replayTag : "") + " · " + c.nt + " turns · " + c.models + (c.lane ? " · lane " + c.lane : "")));
    d.appendChild(s);
    d.addEventListener("toggle", function () {
      if (!d.open || d.dataset.built) return;
      d.dataset.built = "1";
      c.turns.forEach(function (t) {
        var td = el("details", "turn");
        var ts = el("summary", null, "turn " + t.ti + " · " + t.ids.length + " messages" + (t.maxTokens ? " · max " + t.maxTokens : "") + (t.error ? " · error" : "") + (t.cancelled ? " · cancelled" : ""));
        td.appendChild(ts);
        td.addEventListener("toggle", function () {
          if (!td.open || td.dataset.built) return;
          td.dataset.built = "1";
          t.ids.forEach(function (id) {
            var m = data.msgs[id];
            var md = el("details", "msg role-" + m.role);
            md.appendChild(el("summary", null, m.role + " · " + m.len.toLocaleString() + " chars"));
            var pre = el("pre", null, m.body + (m.trunc ? "\\n… " + m.trunc.toLocaleString() + " more characters" : ""));
            md.appendChild(pre);
            td.appendChild(md);
          });
        });
        d.appendChild(td);
      });
      if (c.moreTurns) d.appendChild(el("p", "meta", c.moreTurns + " more turns not shown (--max-turns)"));
    });
    root.appendChild(d);
  });
  document.body.setAttribute("data-ready", "1");
})();
`;

/** The page for a run's raw records. */
export async function turnMessagesHtml(payload: TurnMessagesPayload, name: string): Promise<string> {
  const esc = (t: string) => t.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'">
<title>Turn messages — ${esc(name)}</title>
<style>
body { font: 14px/1.4 -apple-system, "Segoe UI", Roboto, Arial, sans-serif; margin: 20px 28px; color: #1d2329; }
.meta { color: #5b6670; font-weight: normal; }
details { margin: 3px 0 3px 16px; }
details.conv { margin-left: 0; border-bottom: 1px solid #eee; padding: 2px 0; }
summary { cursor: pointer; }
pre { white-space: pre-wrap; word-break: break-word; background: #f7f9fa; border: 1px solid #e3e8ec; padding: 6px 8px; margin: 2px 0 6px; font-size: 12px; }
.role { display: inline-block; margin-right: 10px; padding: 1px 6px; border-radius: 4px; background: #eef2f5; }
.role-system summary, .role.role-system { color: #7a4b00; }
.role-user summary, .role.role-user { color: #1f5fb3; }
.role-assistant summary, .role.role-assistant { color: #1b7f3b; }
.role-tool summary, .role.role-tool { color: #8a3fa0; }
</style>
</head>
<body>
<h1>Turn messages — ${esc(name)}</h1>
<p id="stat" class="meta"></p>
<p id="legend"></p>
<div id="convs"></div>
<script type="application/octet-stream" id="payload">${await gzipBase64(JSON.stringify(payload))}</script>
<script>${VIEWER}</script>
</body>
</html>
`;
}
