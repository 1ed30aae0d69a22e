/**
 * OpenAI audio transcription (`POST /v1/audio/transcriptions`), for `audio_transcription`: a multipart/form-data
 * upload with `file` (the audio) and `model`, `response_format` (`json` by default, `verbose_json`, `text`, `srt`,
 * `vtt`), `language`, …; answer `{"text", "usage": {"type": "duration", "seconds"}}` (json), the transcript alone
 * (text), or the verbose object. The transcript has 2.5 words per second of audio (at least one), generated like
 * any answer: the first word after the time to first token, each further one after an inter-token latency. The
 * duration is read from a WAV header, else estimated at 128 kbit/s.
 */
import type { GenerationRequest } from "../generation_request.ts";
import { badRequest } from "../request_fields.ts";
import type { ReplyContext, RouteRequest, SimFormFile, SimRoute, StreamFraming } from "../sim_route.ts";
import { closingOnly } from "./non_generating.ts";
import { formFile, formText, requireForm } from "./form_fields.ts";

const FORMATS = ["json", "verbose_json", "text", "srt", "vtt"] as const;
type ResponseFormat = (typeof FORMATS)[number];

/** Seconds of audio: a WAV file's data size over its byte rate, else its size at 128 kbit/s. */
export function audioSeconds(file: SimFormFile): number {
  const b = file.bytes;
  const tag = (at: number) => String.fromCharCode(b[at], b[at + 1], b[at + 2], b[at + 3]);
  if (b.length >= 44 && tag(0) === "RIFF" && tag(8) === "WAVE") {
    const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
    let byteRate = 0;
    for (let at = 12; at + 8 <= b.length;) {
      const size = v.getUint32(at + 4, true);
      if (tag(at) === "fmt " && at + 16 <= b.length) byteRate = v.getUint32(at + 16, true);
      if (tag(at) === "data" && byteRate > 0) return Math.min(size, b.length - at - 8) / byteRate;
      at += 8 + size + (size & 1);
    }
  }
  return b.length / 16_000;
}

function timestamp(seconds: number, sep: string): string {
  const ms = Math.round(seconds * 1000);
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${p(Math.floor(ms / 3_600_000))}:${p(Math.floor(ms / 60_000) % 60)}:${p(Math.floor(ms / 1000) % 60)}${sep}${
    p(ms % 1000, 3)
  }`;
}

class TranscriptionRequest implements RouteRequest {
  readonly generation: GenerationRequest;
  readonly #format: ResponseFormat;
  readonly #seconds: number;

  constructor(generation: GenerationRequest, format: ResponseFormat, seconds: number) {
    this.generation = generation;
    this.#format = format;
    this.#seconds = seconds;
  }

  body(_reply: ReplyContext, _reasoning: string, content: string): string {
    const s = this.#seconds;
    switch (this.#format) {
      case "text":
        return content + "\n";
      case "srt":
        return `1\n${timestamp(0, ",")} --> ${timestamp(s, ",")}\n${content}\n\n`;
      case "vtt":
        return `WEBVTT\n\n${timestamp(0, ".")} --> ${timestamp(s, ".")}\n${content}\n\n`;
      case "verbose_json":
        return `{"task":"transcribe","language":"english","duration":${s},"text":"${content}","segments":[{"id":0,` +
          `"start":0,"end":${s},"text":"${content}"}],"usage":{"type":"duration","seconds":${Math.ceil(s)}}}`;
      default:
        return `{"text":"${content}","usage":{"type":"duration","seconds":${Math.ceil(s)}}}`;
    }
  }

  stream(reply: ReplyContext): StreamFraming {
    return closingOnly(`data: ${this.body(reply, "", "")}\n\n`);
  }
}

export const OPENAI_AUDIO_TRANSCRIPTION_ROUTE: SimRoute = {
  name: "audio_transcription",
  description: "OpenAI audio transcription (/v1/audio/transcriptions): a multipart upload, 2.5 words per second.",
  paths: ["/v1/audio/transcriptions"],
  idPrefix: "trsc-",
  bodyFormat: "form",

  parse(body: unknown): RouteRequest {
    const form = requireForm(body);
    const file = formFile(form, "file");
    if (file === undefined) throw badRequest("'file' (the audio to transcribe) is required.", "file");
    const format = (formText(form, "response_format") ?? "json") as ResponseFormat;
    if (!FORMATS.includes(format)) {
      throw badRequest(`'response_format' must be one of ${FORMATS.join(", ")}.`, "response_format");
    }
    const seconds = Math.round(audioSeconds(file) * 1000) / 1000;
    const words = Math.max(1, Math.round(seconds * 2.5));
    return new TranscriptionRequest(
      {
        model: formText(form, "model"),
        stream: false,
        maxTokens: words,
        minTokens: 0,
        ignoreEos: true,
        promptTexts: [],
        promptTokenIds: 0,
        reasoning: undefined,
      },
      format,
      seconds,
    );
  },
};
