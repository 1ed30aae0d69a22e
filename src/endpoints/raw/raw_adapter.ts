/**
 * `--endpoint-type raw`: for APIs no other adapter speaks. Bodies are the dataset's own (raw_payload, inputs_json,
 * a trace's `payload`), sent byte for byte; the adapter builds none and appends no path — `--url` carries the full
 * path (`http://host:8000/v1/chat/completions`).
 *
 * Responses are read like AIPerf's raw endpoint: with `--extra-inputs response_field:<JMESPath>` the text is the
 * value the expression selects (a string, or a list of strings joined); when it selects nothing, or without it,
 * the text is auto-detected: OpenAI `choices[0].delta.content` / `message.content` / `text`, then the first string
 * among `text`, `content`, `response`, `output`, `result`, `generated_text`. Usage is read from an OpenAI-style
 * `usage` object wherever one is present. The JMESPath library is loaded only when an expression is given.
 */
import type { Turn } from "../../dataset/conversation.ts";
import { payloadText } from "../../dataset/payload_text.ts";
import type { AdapterSettings, BuildContext, Delta, EndpointAdapter } from "../endpoint_adapter.ts";
import {
  asObject,
  type JsonObject,
  openAiHeaders,
  parseSseJson,
  readApiError,
  readReasoning,
  readToolCallText,
  readUsage,
} from "../openai/openai_fields.ts";
import { RAW_ENDPOINT } from "../endpoint_declarations.ts";

/** Fields read as the response text when no expression selects one, in AIPerf's order. */
const TEXT_FIELDS = ["text", "content", "response", "output", "result", "generated_text"] as const;

function str(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

/** The response text an expression selected: a string, or the strings of a list joined. */
function selectedText(value: unknown): string | undefined {
  if (typeof value === "string") return str(value);
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return str(value.join(""));
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

/** Auto-detection of the text, reasoning and tool calls of one event or body. */
function detect(obj: JsonObject): Delta {
  const usage = readUsage(obj.usage);
  const error = readApiError(obj);
  const finishReason = (choice: JsonObject | undefined) => str(choice?.finish_reason);
  if (Array.isArray(obj.choices)) {
    const choice = asObject(obj.choices[0]);
    const part = asObject(choice?.delta) ?? asObject(choice?.message);
    if (part !== undefined) {
      return {
        content: str(part.content),
        reasoning: readReasoning(part),
        toolCalls: readToolCallText(part.tool_calls, part.function_call),
        usage,
        finishReason: finishReason(choice),
        error,
      };
    }
    return { content: str(choice?.text), usage, finishReason: finishReason(choice), error };
  }
  for (const key of TEXT_FIELDS) {
    const text = str(obj[key]);
    if (text !== undefined) return { content: text, usage, error };
  }
  return { usage, error };
}

function makeRawAdapter(select: ((json: unknown) => unknown) | undefined): EndpointAdapter {
  const read = (obj: JsonObject): Delta => {
    if (select !== undefined) {
      let chosen: string | undefined;
      try {
        chosen = selectedText(select(obj));
      } catch {
        chosen = undefined; // a runtime type error in the expression falls back to detection, as AIPerf
      }
      if (chosen !== undefined) return { ...detect(obj), content: chosen, reasoning: undefined, toolCalls: undefined };
    }
    return detect(obj);
  };
  return {
    ...RAW_ENDPOINT,
    usesHistory: false,
    writtenBodiesOnly: true,
    headers: openAiHeaders,

    buildRequest(turn: Turn, _ctx: BuildContext): Record<string, unknown> {
      if (turn.rawPayload === undefined) {
        throw new TypeError(
          "--endpoint-type raw sends request bodies written in the dataset; use a raw_payload or inputs_json file",
        );
      }
      return JSON.parse(turn.rawPayload);
    },

    parseEvent(data: string): Delta | undefined {
      const obj = parseSseJson(data);
      return obj ? read(obj) : undefined;
    },

    parseBody(json: unknown): Delta {
      const obj = asObject(json);
      if (!obj) return { error: { message: "the response body is not a JSON object", type: "ParseError" } };
      return read(obj);
    },

    inputText(turn: Turn): string {
      return turn.rawPayload !== undefined ? payloadText(JSON.parse(turn.rawPayload)) : turn.texts.join(" ");
    },

    exampleSettings: { extraInputs: { response_field: "choices[0].message.content" } },

    async configure(settings: AdapterSettings): Promise<EndpointAdapter> {
      const field = settings.extraInputs.response_field;
      if (field === undefined) return this;
      if (typeof field !== "string" || field.trim() === "") {
        throw new TypeError(
          `--extra-inputs response_field must be a JMESPath expression (got ${JSON.stringify(field)})`,
        );
      }
      const { compile, TreeInterpreter } = await import("@jmespath-community/jmespath");
      let ast: ReturnType<typeof compile>;
      try {
        ast = compile(field);
      } catch (error) {
        throw new TypeError(
          `--extra-inputs response_field ${JSON.stringify(field)} is not a valid JMESPath expression (${
            (error as Error).message
          }); see https://jmespath.org`,
        );
      }
      return makeRawAdapter((json) => TreeInterpreter.search(ast, json as never));
    },

    sampleResponses: {
      stream: [
        '{"choices":[{"index":0,"delta":{"content":" Hello"}}]}',
        '{"choices":[{"index":0,"delta":{"content":" world"},"finish_reason":"length"}]}',
        '{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}',
        "[DONE]",
      ].map((data) => `data: ${data}\n\n`).join(""),
      body: '{"output":"Hello world","usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}',
    },
  };
}

export const RAW_ADAPTER: EndpointAdapter = makeRawAdapter(undefined);
