/**
 * OpenAI / SGLang video generation (`POST /v1/videos`), an asynchronous job API: Sora, and Wan2.1 or HunyuanVideo
 * served by SGLang. References: https://platform.openai.com/docs/api-reference/videos and SGLang's multimodal_gen
 * OpenAI API notes. As AIPerf 0.13 runs it:
 *
 * 1. `POST /v1/videos` with a multipart/form-data body — `prompt` (the turn's first text), `model`, and `size`,
 *    `seconds`, `seed`, `num_inference_steps`, `guidance_scale`, `negative_prompt`, `fps`, `num_frames`, … from
 *    `--extra-inputs` — answers a job `{"id", "object": "video", "status": "queued", "progress", …}`;
 * 2. `GET /v1/videos/<id>` every 100 ms until `status` is `completed` (or `failed`, with `error.message`), within
 *    `--request-timeout-seconds` for the whole job;
 * 3. with `--download-video-content`, `GET /v1/videos/<id>/content` (the video bytes, read and dropped).
 *
 * The request latency runs from the submission to the status answer that says completed; SGLang's completed job
 * carries `inference_time_s` and `peak_memory_mb`, published as `video_inference_time` and `video_peak_memory`.
 */
import type { Turn } from "../../dataset/conversation.ts";
import type { BuildContext, Delta, EndpointAdapter, JobState } from "../endpoint_adapter.ts";
import { encodeMultipartForm, formHeaders } from "../multipart_form.ts";
import { asNumber, asObject, asText, type JsonObject, mergeExtras, parseSseJson } from "./openai_fields.ts";
import { VIDEO_GENERATION_ENDPOINT } from "../endpoint_declarations.ts";

/** A job object's state: `queued` and `in_progress` are pending, as are states a server adds. */
function readJob(json: unknown): JobState | undefined {
  const obj = asObject(json);
  if (!obj || typeof obj.status !== "string") return undefined;
  const id = asText(obj.id);
  if (obj.status === "completed") return { id, status: "completed" };
  if (obj.status === "failed") {
    const err = obj.error;
    const message = typeof err === "string" ? err : asText(asObject(err)?.message) ?? "Unknown error";
    return { id, status: "failed", error: message };
  }
  return { id, status: "pending" };
}

/** The body the job ended with: completed (with the server's own figures), failed, or not a job. */
function readFinished(json: unknown): Delta {
  const obj = asObject(json);
  if (!obj) return { error: { message: "the response body is not a JSON object", type: "ParseError" } };
  const job = readJob(obj);
  if (job === undefined) {
    const api = asObject(obj.error);
    if (api !== undefined) return { error: { message: asText(api.message) ?? JSON.stringify(api), type: "APIError" } };
    return {
      error: { message: `the answer is not a video job: ${JSON.stringify(obj).slice(0, 200)}`, type: "ParseError" },
    };
  }
  if (job.status === "failed") {
    return { error: { message: `Video generation failed: ${job.error}`, type: "VideoGenerationError", code: 500 } };
  }
  if (job.status === "pending") {
    return { error: { message: `the video job is still '${obj.status}'`, type: "VideoGenerationError", code: 500 } };
  }
  return { video: { inferenceTimeS: asNumber(obj.inference_time_s), peakMemoryMb: asNumber(obj.peak_memory_mb) } };
}

export const VIDEO_GENERATION_ADAPTER: EndpointAdapter = {
  ...VIDEO_GENERATION_ENDPOINT,
  usesHistory: false,
  headers: formHeaders,

  buildRequest(turn: Turn, ctx: BuildContext): Record<string, unknown> {
    const body: JsonObject = { prompt: turn.texts[0] ?? "", model: turn.model ?? ctx.model };
    return mergeExtras(body, ctx.extraInputs, turn.extra);
  },
  encodeBody: encodeMultipartForm,
  job: { readJob },

  parseEvent(data: string): Delta | undefined {
    const obj = parseSseJson(data);
    return obj ? readFinished(obj) : undefined;
  },
  parseBody: readFinished,
  inputText: (turn: Turn) => turn.texts[0] ?? "",

  sampleResponses: {
    stream: `data: {"id":"video_0","object":"video","status":"completed","progress":100,"inference_time_s":1.5,` +
      `"peak_memory_mb":20480}\n\n`,
    body: `{"id":"video_0","object":"video","status":"completed","progress":100,"model":"m","size":"1280x720",` +
      `"seconds":"4","created_at":0,"completed_at":2,"inference_time_s":1.5,"peak_memory_mb":20480}`,
  },
};
