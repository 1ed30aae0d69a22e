/**
 * The template endpoint: the request body is a Jinja template rendered per turn, for APIs no other type speaks.
 * As AIPerf's `template` type: the template comes from `--extra-inputs payload_template:<template>`, where
 * `<template>` is a named template (`nv-embedqa` = `{"text": {{ texts|tojson }}}`), a file path, or the template
 * itself; it must render JSON. Variables: `text`, `texts`, `query`, `queries`, `passage`, `passages`,
 * `texts_by_name`, `model`, `max_tokens`, `stream`, `role`, `turn`; media variables (`image(s)`, `audio(s)`,
 * `video(s)` and their `*_by_name`) are empty, since infermeter's datasets carry text only. The other extra inputs
 * are merged into the rendered body, then the turn's extras.
 *
 * The answer (each SSE event, or the body) is read at `--extra-inputs response_field:<path>` when given (a missing
 * value fails the request), else detected like AIPerf: embeddings (`data[].embedding`, `embeddings`, `embedding`),
 * then rankings (`rankings`, `results`), then text (`text`, `content`, `response`, `output`, `result`,
 * `choices[0].text`, `choices[0].message.content`, `choices[0].delta.content`); usage is read where present.
 *
 * There is no default path: the URL (or `--endpoint`) names it. Jinja is @huggingface/jinja, loaded only when a run
 * uses this type.
 */
import type { Turn } from "../../dataset/conversation.ts";
import type { AdapterSettings, BuildContext, Delta, EndpointAdapter } from "../endpoint_adapter.ts";
import {
  asObject,
  asText,
  type JsonObject,
  openAiHeaders,
  parseSseJson,
  readApiError,
  readUsage,
} from "../openai/openai_fields.ts";
import { type FieldPath, parseResponseField, readField } from "./response_field.ts";
import { TEMPLATE_ENDPOINT } from "../endpoint_declarations.ts";

/** AIPerf's named templates. */
export const NAMED_TEMPLATES: Readonly<Record<string, string>> = {
  "nv-embedqa": '{"text": {{ texts|tojson }}}',
};

const CONSUMED = new Set(["payload_template", "response_field"]);

interface Compiled {
  render(vars: Record<string, unknown>): string;
}

function unconfigured(): never {
  throw new Error(
    "the template endpoint needs a payload template: add --extra-inputs payload_template:<template|file|nv-embedqa>",
  );
}

/** Auto-detection of what an answer holds (AIPerf's order). */
function detect(obj: JsonObject): Delta {
  const usage = readUsage(obj.usage);
  const error = readApiError(obj);
  if (error) return { error, usage };
  const data = Array.isArray(obj.data) ? obj.data : undefined;
  if (data && data.some((d) => asObject(d)?.embedding !== undefined)) return { usage };
  if (Array.isArray(obj.embeddings) || Array.isArray(obj.embedding)) return { usage };
  if (Array.isArray(obj.rankings) || Array.isArray(obj.results)) return { usage };
  for (const key of ["text", "content", "response", "output", "result"]) {
    const text = asText(obj[key]);
    if (text !== undefined) return { content: text, usage };
  }
  const choice = Array.isArray(obj.choices) ? asObject(obj.choices[0]) : undefined;
  if (choice) {
    const text = asText(choice.text) ?? asText(asObject(choice.message)?.content) ??
      asText(asObject(choice.delta)?.content);
    return { content: text, usage, finishReason: asText(choice.finish_reason) };
  }
  return { usage };
}

function readAt(json: unknown, path: FieldPath, expr: string): Delta {
  const obj = asObject(json);
  const usage = obj ? readUsage(obj.usage) : undefined;
  const value = readField(json, path);
  if (value === undefined || value === null) {
    // A usage-only event in a stream is not a miss.
    if (usage !== undefined) return { usage };
    return { error: { message: `the response has no value at response_field '${expr}'`, type: "ParseError" } };
  }
  return typeof value === "string" ? { content: value, usage } : { usage };
}

function makeAdapter(template: Compiled | undefined, field: { path: FieldPath; expr: string } | undefined) {
  const read = (json: unknown): Delta => {
    if (field) return readAt(json, field.path, field.expr);
    const obj = asObject(json);
    return obj ? detect(obj) : { error: { message: "the response body is not a JSON object", type: "ParseError" } };
  };
  const adapter: EndpointAdapter = {
    ...TEMPLATE_ENDPOINT,
    usesHistory: false,
    headers: openAiHeaders,

    buildRequest(turn: Turn, ctx: BuildContext): Record<string, unknown> {
      if (template === undefined) unconfigured();
      const rendered = template.render(templateVariables(turn, ctx));
      let body: unknown;
      try {
        body = JSON.parse(rendered);
      } catch (err) {
        const shown = rendered.length > 200 ? rendered.slice(0, 200) + "…" : rendered;
        throw new Error(`the payload template did not render JSON (${(err as Error).message}): ${shown}`);
      }
      const obj = asObject(body);
      if (!obj) throw new Error(`the payload template must render a JSON object, not: ${rendered.slice(0, 200)}`);
      for (const [k, v] of Object.entries(ctx.extraInputs)) if (!CONSUMED.has(k)) obj[k] = v;
      if (turn.extra) { for (const [k, v] of Object.entries(turn.extra)) obj[k] = v; }
      return obj;
    },

    parseEvent(data: string): Delta | undefined {
      if (data.length === 0 || data === "[DONE]") return undefined;
      if (data[0] !== "{" && data[0] !== "[") return { content: data };
      const obj = parseSseJson(data);
      return obj ? read(obj) : read(JSON.parse(data));
    },
    parseBody: read,
    inputText: (turn: Turn) => turn.texts.join("\n"),

    async configure(settings: AdapterSettings): Promise<EndpointAdapter> {
      const source = settings.extraInputs.payload_template;
      if (typeof source !== "string" || source.length === 0) unconfigured();
      const text = NAMED_TEMPLATES[source] ?? settings.readTextFile?.(source) ?? source;
      const { Template } = await import("@huggingface/jinja");
      let compiled: Compiled;
      try {
        compiled = new Template(text);
      } catch (err) {
        throw new Error(`--extra-inputs payload_template: the template does not parse: ${(err as Error).message}`);
      }
      const expr = settings.extraInputs.response_field;
      const path = typeof expr === "string" && expr.length > 0 && expr !== "text"
        ? { path: parseResponseField(expr), expr }
        : undefined;
      return makeAdapter(compiled, path);
    },
    exampleSettings: {
      extraInputs: { payload_template: '{"model": {{ model|tojson }}, "prompt": {{ text|tojson }}}' },
    },

    sampleResponses: {
      stream:
        'data: {"text":" Hello"}\n\ndata: {"text":" world","usage":{"prompt_tokens":3,"completion_tokens":2}}\n\n' +
        "data: [DONE]\n\n",
      body: '{"text":"Hello world","usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}',
    },
  };
  return adapter;
}

function templateVariables(turn: Turn, ctx: BuildContext): Record<string, unknown> {
  const named = turn.named ?? {};
  const queries = named.query ?? named.queries ?? [];
  const passages = named.passages ?? named.passage ?? [];
  return {
    text: turn.texts[0] ?? null,
    texts: [...turn.texts],
    query: queries[0] ?? null,
    queries: [...queries],
    passage: passages[0] ?? null,
    passages: [...passages],
    texts_by_name: named,
    image: null,
    images: [],
    audio: null,
    audios: [],
    video: null,
    videos: [],
    images_by_name: {},
    audios_by_name: {},
    videos_by_name: {},
    model: turn.model ?? ctx.model,
    max_tokens: ctx.maxTokens ?? null,
    stream: ctx.streaming,
    role: turn.role ?? null,
    turn: {
      texts: [...turn.texts],
      role: turn.role ?? null,
      max_tokens: ctx.maxTokens ?? null,
      model: turn.model ?? null,
    },
  };
}

export const TEMPLATE_ADAPTER: EndpointAdapter = makeAdapter(undefined, undefined);
