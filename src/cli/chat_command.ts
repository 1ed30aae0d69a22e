/**
 * The options of `infermeter chat` (AIPerf's `aiperf chat`), declared once: its parser and `--help` come from here.
 */
import { type Command, defineCommand } from "../config/command_spec.ts";
import type { OptionSpec } from "../base/option_spec.ts";

const CHAT_OPTIONS = [
  {
    key: "model",
    type: "string",
    flags: ["--model"],
    short: "-m",
    group: "Options",
    metavar: "<name>",
    required: "give the model the server serves: -m <name>",
    help: "Model name served by the endpoint.",
  },
  {
    key: "url",
    type: "string",
    default: "http://localhost:8000",
    flags: ["--url"],
    short: "-u",
    group: "Options",
    metavar: "<url>",
    help: "Base URL of the OpenAI-compatible server, as for profile (a /v1 base or a full /chat/completions URL " +
      "is taken as it is).",
  },
  {
    key: "systemPrompt",
    type: "string",
    multiline: true,
    flags: ["--system-prompt"],
    group: "Options",
    metavar: "<text>",
    help: "System prompt sent first in every request.",
  },
  {
    key: "quick",
    type: "string",
    multiline: true,
    flags: ["--quick"],
    short: "-q",
    group: "Options",
    metavar: "<message>",
    help: "Send this one message, print the reply and its figures, and exit.",
  },
  {
    key: "history",
    type: "bool",
    default: true,
    flags: ["--history"],
    group: "Options",
    help: "Send the conversation so far with each message (the default); --no-history sends each message alone.",
  },
  {
    key: "apiKey",
    type: "string",
    flags: ["--api-key"],
    env: "OPENAI_API_KEY",
    group: "Options",
    metavar: "<key>",
    help: "API key, sent as a bearer token; never printed.",
  },
  {
    key: "tokenizer",
    type: "string",
    flags: ["--tokenizer"],
    group: "Options",
    metavar: "<name|path>",
    defaultDescription: "the model's own from the local Hugging Face cache, else builtin",
    help: "Tokenizer for the output token counts: a tokenizer.json path or directory, a hub id in the local " +
      "cache, or builtin (never downloaded).",
  },
] as const satisfies readonly OptionSpec[];

/** `infermeter chat`. */
export const CHAT_COMMAND: Command<typeof CHAT_OPTIONS> = defineCommand({
  name: "chat",
  usage: "-m <model> [options]",
  description: "Chat with an OpenAI-compatible server one message at a time, streaming each reply and printing its " +
    "figures after it: time to first token, tokens per second (end to end), inter-token latency and, when the server " +
    "reports cached prompt tokens, the prefix-cache hit rate, computed as profile computes them. Type messages at the " +
    "'>' prompt; Ctrl-D ends. A sanity check before a benchmark: use profile to measure.\n" +
    "Exit codes: 0 done, 1 the --quick request failed, 2 bad options or tokenizer, 3 the server could not be reached.",
  options: CHAT_OPTIONS,
  examples: [
    { title: "Interactive chat, history kept", command: "infermeter chat -m Qwen/Qwen3-0.6B -u http://localhost:8000" },
    { title: "Stateless turns", command: "infermeter chat -m Qwen/Qwen3-0.6B --no-history" },
    { title: "One message and exit", command: 'infermeter chat -m Qwen/Qwen3-0.6B -q "hello, who are you?"' },
  ],
});
