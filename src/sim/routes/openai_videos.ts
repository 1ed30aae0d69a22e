/**
 * OpenAI / SGLang video generation (`POST /v1/videos`), for `video_generation`, an asynchronous job API: the
 * multipart/form-data submission (`prompt`, `model`, `size`, `seconds`, `fps`, `num_frames`,
 * `num_inference_steps`, …) is answered at once with a job `{"id": "video_…", "object": "video", "status": "queued",
 * "progress": 0, …}`; `GET /v1/videos/<id>` answers `in_progress` with its progress, then `completed` with
 * `completed_at` and SGLang's `inference_time_s` and `peak_memory_mb`; `GET /v1/videos/<id>/content` the video once
 * completed. The job takes `num_inference_steps` (default 50) denoising steps: the first after the time to first
 * token, each further one after an inter-token latency. Peak memory grows with the frames' pixels.
 */
import type { GenerationRequest } from "../generation_request.ts";
import { badRequest } from "../request_fields.ts";
import type { ReplyContext, RouteRequest, SimJob, SimRoute, StreamFraming } from "../sim_route.ts";
import { closingOnly, nonGenerating } from "./non_generating.ts";
import { formCount, formNumber, formText, requireForm } from "./form_fields.ts";

/** The start of an MP4 file (an `ftyp` box, an empty `mdat`): what `/content` sends. */
const MP4 = new Uint8Array([
  0,
  0,
  0,
  24,
  0x66,
  0x74,
  0x79,
  0x70,
  0x69,
  0x73,
  0x6f,
  0x6d,
  0,
  0,
  2,
  0,
  0x69,
  0x73,
  0x6f,
  0x6d,
  0x69,
  0x73,
  0x6f,
  0x32,
  0,
  0,
  0,
  8,
  0x6d,
  0x64,
  0x61,
  0x74,
]);

interface VideoSpec {
  readonly prompt: string;
  readonly model: string | undefined;
  readonly size: string;
  readonly seconds: string;
  readonly frames: number;
  readonly steps: number;
}

class VideoJob implements SimJob {
  readonly steps: number;
  readonly #spec: VideoSpec;

  constructor(spec: VideoSpec) {
    this.steps = spec.steps;
    this.#spec = spec;
  }

  #head(reply: ReplyContext): string {
    const s = this.#spec;
    return `{"id":"${reply.id}","object":"video","model":${JSON.stringify(s.model ?? reply.model)},` +
      `"created_at":${reply.created},"size":${JSON.stringify(s.size)},"seconds":${JSON.stringify(s.seconds)},` +
      `"quality":"standard"`;
  }

  status(reply: ReplyContext, elapsedMs: number, durationMs: number): string {
    if (elapsedMs < durationMs) {
      const progress = Math.floor(100 * Math.max(0, elapsedMs) / Math.max(durationMs, 1e-9));
      return `${this.#head(reply)},"status":"${progress === 0 ? "queued" : "in_progress"}","progress":${progress}}`;
    }
    const [w, h] = this.#spec.size.split("x").map(Number);
    const peak = Math.round(8192 + (w * h * this.#spec.frames) / 4096);
    const completed = reply.created + Math.ceil(durationMs / 1000);
    return `${this.#head(reply)},"status":"completed","progress":100,"completed_at":${completed},` +
      `"expires_at":${completed + 3600},"inference_time_s":${Math.round(durationMs) / 1000},"peak_memory_mb":${peak}}`;
  }

  content(): { body: Uint8Array<ArrayBuffer>; contentType: string } {
    return { body: MP4.slice(), contentType: "video/mp4" };
  }
}

class VideoRequest implements RouteRequest {
  readonly generation: GenerationRequest;
  readonly job: VideoJob;

  constructor(generation: GenerationRequest, job: VideoJob) {
    this.generation = generation;
    this.job = job;
  }

  body(reply: ReplyContext): string {
    return this.job.status(reply, 0, 1);
  }

  stream(reply: ReplyContext): StreamFraming {
    return closingOnly(`data: ${this.body(reply)}\n\n`);
  }
}

export const OPENAI_VIDEOS_ROUTE: SimRoute = {
  name: "video_generation",
  description: "OpenAI / SGLang video generation (/v1/videos): a multipart job submission, polled until completed.",
  paths: ["/v1/videos"],
  idPrefix: "video_",
  bodyFormat: "form",
  jobs: true,

  parse(body: unknown): RouteRequest {
    const form = requireForm(body);
    const prompt = formText(form, "prompt");
    if (prompt === undefined || prompt.length === 0) throw badRequest("'prompt' must be a non-empty text.", "prompt");
    const size = formText(form, "size") ?? "1280x720";
    if (!/^\d+x\d+$/.test(size)) throw badRequest("'size' must be <width>x<height>, e.g. 1280x720.", "size");
    const seconds = formNumber(form, "seconds") ?? 4;
    const fps = formNumber(form, "fps") ?? 16;
    const frames = formCount(form, "num_frames", 1) ?? Math.max(1, Math.round(seconds * fps));
    const steps = formCount(form, "num_inference_steps", 1) ?? 50;
    if (steps > 1000) throw badRequest("'num_inference_steps' must be at most 1000.", "num_inference_steps");
    const model = formText(form, "model");
    const job = new VideoJob({ prompt, model, size, seconds: String(seconds), frames, steps });
    return new VideoRequest(nonGenerating(model, [prompt]), job);
  },
};
