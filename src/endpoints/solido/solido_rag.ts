/**
 * Solido RAG (`POST /rag/api/prompt`), Siemens Solido's retrieval-augmented generation pipeline, as AIPerf 0.13
 * speaks it (its `solido_rag` endpoint is the only public reference of the API): request `{"query": [<the turn's
 * texts>], "filters": {"family": "Solido", "tool": "SDE"}, "inference_model": <model>}` plus `--extra-inputs` (which
 * may replace the filters); answer `{"content": <generated text>, "sources": […]}`, or streamed (asked with
 * `Accept: text/event-stream`) as SSE events each carrying a `content` piece. The pipeline reports no token usage,
 * so output tokens are counted by the client tokenizer; there is no output-length field to send.
 */
import type { Turn } from "../../dataset/conversation.ts";
import type { BuildContext, Delta, EndpointAdapter } from "../endpoint_adapter.ts";
import {
  asObject,
  asText,
  type JsonObject,
  mergeExtras,
  openAiHeaders,
  parseSseJson,
  readApiError,
} from "../openai/openai_fields.ts";
import { SOLIDO_RAG_ENDPOINT } from "../endpoint_declarations.ts";

function readAnswer(json: unknown): Delta {
  const obj = asObject(json);
  if (!obj) return { error: { message: "the response body is not a JSON object", type: "ParseError" } };
  const error = readApiError(obj);
  if (error) return { error };
  const content = asText(obj.content);
  return content === undefined || content.length === 0 ? {} : { content };
}

export const SOLIDO_RAG_ADAPTER: EndpointAdapter = {
  ...SOLIDO_RAG_ENDPOINT,
  usesHistory: false,
  headers: openAiHeaders,

  buildRequest(turn: Turn, ctx: BuildContext): Record<string, unknown> {
    const body: JsonObject = {
      query: turn.texts.filter((t) => t.length > 0),
      filters: { family: "Solido", tool: "SDE" },
      inference_model: turn.model ?? ctx.model,
    };
    return mergeExtras(body, ctx.extraInputs, turn.extra);
  },

  parseEvent(data: string): Delta | undefined {
    const obj = parseSseJson(data);
    return obj ? readAnswer(obj) : undefined;
  },
  parseBody: readAnswer,
  inputText: (turn: Turn) => turn.texts.filter((t) => t.length > 0).join("\n"),

  sampleResponses: {
    stream: `data: {"content":"Use the"}\n\ndata: {"content":" corner analysis."}\n\n` +
      `data: {"content":"","sources":[{"title":"SDE guide","page":3}]}\n\n`,
    body: `{"content":"Use the corner analysis.","sources":[{"title":"SDE guide","page":3}]}`,
  },
};
