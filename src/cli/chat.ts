/**
 * `infermeter chat -m <model>`: AIPerf's `aiperf chat`. Each message is a streamed chat completion; the reply is
 * printed as it arrives (reasoning included), then its figures (`run/chat_turn.ts`). Interactive by default, the
 * conversation kept and resent (`--no-history`: each message alone); `--quick <message>` sends one and exits. A
 * failed request is reported on stderr and, interactively, the prompt comes back.
 */
import { ConfigError } from "../config/config_error.ts";
import { parseCommandArgs } from "../config/parse_command_args.ts";
import { isHelpRequest } from "../config/read_cli_args.ts";
import { renderHelp } from "../config/render_help.ts";
import { parseTarget } from "../transport/parse_target.ts";
import { HttpClient } from "../transport/http_client.ts";
import type { Target } from "../transport/http_exchange.ts";
import { CHAT_ADAPTER } from "../endpoints/openai/chat.ts";
import { requestHeaders } from "../engine/request_headers.ts";
import { defaultTokenizerFor, loadTokenizer } from "../tokenizer/load_tokenizer.ts";
import type { Tokenizer } from "../tokenizer/tokenizer.ts";
import { type ChatTurnMessage, formatChatStats, sendChatTurn } from "../run/chat_turn.ts";
import { REDACTED } from "../base/redact_secrets.ts";
import { EXIT } from "./exit_codes.ts";
import { CHAT_COMMAND } from "./chat_command.ts";

export interface ChatIo {
  /** Reply text and figures (no line break added). */
  readonly write: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** The user's lines; ends at end of input. */
  readonly lines: () => AsyncIterable<string>;
  readonly env: Readonly<Record<string, string>>;
}

const ENCODER = new TextEncoder();

async function* stdinLines(): AsyncIterable<string> {
  let rest = "";
  for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
    rest += chunk;
    for (let nl = rest.indexOf("\n"); nl >= 0; nl = rest.indexOf("\n")) {
      yield rest.slice(0, nl).replace(/\r$/, "");
      rest = rest.slice(nl + 1);
    }
  }
  if (rest !== "") yield rest;
}

const DEFAULT_IO: ChatIo = {
  write: (text) => Deno.stdout.writeSync(ENCODER.encode(text)),
  stderr: (text) => console.error(text.replace(/\n$/, "")),
  lines: stdinLines,
  env: Deno.env.toObject(),
};

/** Connecting may take 10 s; an answer is never cut short (AIPerf's chat sets no total limit either). */
const CONNECT_TIMEOUT_MS = 10_000;
const TURN_TIMEOUT_MS = 3_600_000;

/** The chat completions path for a base URL, as AIPerf's chat resolves it. */
export function chatPath(target: Target): string {
  const base = target.basePath;
  if (base.endsWith("/chat/completions")) return base;
  if (base.endsWith("/v1")) return `${base}/chat/completions`;
  return `${base}/v1/chat/completions`;
}

export async function runChat(args: string[], io: ChatIo = DEFAULT_IO): Promise<number> {
  if (isHelpRequest(args)) {
    io.write(renderHelp(CHAT_COMMAND) + "\n");
    return EXIT.OK;
  }
  let values;
  let target: Target;
  let tokenizer: Tokenizer;
  try {
    values = parseCommandArgs(CHAT_COMMAND, args, { env: io.env }).values;
    try {
      target = parseTarget(values.url);
    } catch (e) {
      throw new ConfigError([`--url: ${(e as Error).message}`]);
    }
    let spec = values.tokenizer;
    if (spec === undefined) {
      const fallback = defaultTokenizerFor(values.model, io.env);
      spec = fallback.spec;
      if (fallback.details !== undefined) io.stderr(fallback.notice + "\n");
    }
    try {
      tokenizer = await loadTokenizer(spec, io.env);
    } catch (e) {
      throw new ConfigError([`--tokenizer: ${(e as Error).message}`]);
    }
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    io.stderr(`error: ${e.message}\n`);
    return EXIT.USAGE;
  }
  const headers = requestHeaders(target, {
    endpointHeaders: CHAT_ADAPTER.headers({ streaming: true, apiKey: values.apiKey }),
    userHeaders: [],
  });
  const client = new HttpClient(target, { connectTimeoutMs: CONNECT_TIMEOUT_MS });
  const system: ChatTurnMessage[] = values.systemPrompt ? [{ role: "system", content: values.systemPrompt }] : [];
  const secrets = values.apiKey === undefined ? [] : [values.apiKey];
  let turn = 0;
  const send = async (history: readonly ChatTurnMessage[], message: string) => {
    let printed = false;
    const result = await sendChatTurn({
      sender: client,
      path: chatPath(target),
      headers,
      model: values.model,
      messages: [...system, ...history, { role: "user", content: message }],
      tokenizer,
      turn: turn++,
      timeoutMs: TURN_TIMEOUT_MS,
      onText: (text) => {
        printed = true;
        io.write(text);
      },
    });
    if (printed) io.write("\n");
    const error = result.record.error;
    if (error !== undefined) {
      const code = error.code === undefined ? "" : ` ${error.code}`;
      const message = secrets.reduce((m, secret) => m.replaceAll(secret, REDACTED), error.message);
      io.stderr(`request failed: ${error.type}${code}: ${message}\n`);
      return { result, failed: error.type === "ConnectionError" || error.type === "ConnectTimeoutError" ? 3 : 1 };
    }
    io.write(formatChatStats(result) + "\n");
    return { result, failed: 0 };
  };
  try {
    if (values.quick !== undefined) {
      const { failed } = await send([], values.quick);
      return failed === 0 ? EXIT.OK : failed === 3 ? EXIT.UNREACHABLE : EXIT.REQUESTS_FAILED;
    }
    const history: ChatTurnMessage[] = [];
    io.write("Please enter a message for the chat model (Ctrl-D to exit):\n> ");
    for await (const line of io.lines()) {
      if (line.trim() !== "") {
        const { result, failed } = await send(history, line);
        if (failed === 0 && values.history) {
          // A reasoning-only answer is kept as its reasoning, so the next turn has the assistant's part.
          history.push({ role: "user", content: line }, {
            role: "assistant",
            content: result.record.content || result.record.reasoning,
          });
        }
      }
      io.write("> ");
    }
    io.write("\n");
    return EXIT.OK;
  } finally {
    client.close();
  }
}
