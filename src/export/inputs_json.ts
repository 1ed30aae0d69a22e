/**
 * `inputs.json` (AIPerf §3.2): the exact request body of every turn, per session —
 * `{"data": [{"session_id": "...", "payloads": [<body of turn 0>, ...]}]}` — so results can be joined
 * with what was sent (`conversation_id` + `turn_index` in the per-record JSONL). Secret-looking fields (`api_key`,
 * `password`, … from --extra-inputs or the dataset) are written as `<redacted>`; the requests sent them as given.
 */
import { redactSecretKeys } from "../base/redact_secrets.ts";

/** One session's request bodies, in turn order. */
export interface SessionPayloads {
  readonly sessionId: string;
  readonly payloads: readonly unknown[];
}

function sessionJson(session: SessionPayloads): string {
  const payloads = redactSecretKeys(session.payloads);
  const body = JSON.stringify({ session_id: session.sessionId, payloads }, null, 2);
  return body.replaceAll("\n", "\n    ");
}

/** The whole `inputs.json` text (2-space indented). */
export function renderInputsJson(sessions: Iterable<SessionPayloads>): string {
  const parts = [...sessions].map((s) => `    ${sessionJson(s)}`);
  return parts.length === 0 ? '{\n  "data": []\n}' : `{\n  "data": [\n${parts.join(",\n")}\n  ]\n}`;
}

/**
 * Streams `inputs.json` to `path` one session at a time, so large datasets never become one giant string.
 * The output is identical to {@linkcode renderInputsJson}.
 */
export async function writeInputsJson(path: string, sessions: Iterable<SessionPayloads>): Promise<void> {
  const encoder = new TextEncoder();
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  try {
    const write = async (text: string) => {
      const bytes = encoder.encode(text);
      let offset = 0;
      while (offset < bytes.length) offset += await file.write(bytes.subarray(offset));
    };
    let chunk = '{\n  "data": [';
    let first = true;
    for (const session of sessions) {
      chunk += `${first ? "\n" : ",\n"}    ${sessionJson(session)}`;
      first = false;
      if (chunk.length > 1 << 16) {
        await write(chunk);
        chunk = "";
      }
    }
    chunk += first ? "]\n}" : "\n  ]\n}";
    await write(chunk);
  } finally {
    file.close();
  }
}
