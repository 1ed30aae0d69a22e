/**
 * OpenAI audio transcription (`POST /v1/audio/transcriptions`), as OpenAI, NIM Riva/Whisper and SGLang serve it.
 * Reference: https://platform.openai.com/docs/api-reference/audio/createTranscription — a multipart/form-data
 * upload: `file` (the audio, `audio.<format>`), `model`, and any other field (`language`, `response_format`,
 * `temperature`, …) from `--extra-inputs`, as AIPerf sends it; the answer is `{"text", "usage"?}` (json,
 * verbose_json) or the transcript itself (text, srt, vtt). A transcript is not counted in tokens: the table has
 * latency and throughput ("Audio Transcription Metrics"); an answer without a transcript is an error.
 */
import type { MediaItem, Turn } from "../../dataset/conversation.ts";
import type { BuildContext, Delta, EndpointAdapter } from "../endpoint_adapter.ts";
import { encodeMultipartForm, type FormFile, formHeaders } from "../multipart_form.ts";
import {
  asObject,
  type JsonObject,
  mergeExtrasExcept,
  parseSseJson,
  readApiError,
  readUsage,
} from "./openai_fields.ts";
import { AUDIO_TRANSCRIPTION_ENDPOINT } from "../endpoint_declarations.ts";

/** Fields the adapter writes itself: `--extra-inputs` and a turn's extras cannot replace them (AIPerf). */
const RESERVED = new Set(["file"]);

/** MIME type by audio format, as OpenAI names its accepted formats (mp3, mpga and mpeg are one type). */
const MIME_BY_FORMAT: Readonly<Record<string, string>> = {
  wav: "audio/wav",
  mp3: "audio/mpeg",
  mpga: "audio/mpeg",
  mpeg: "audio/mpeg",
  flac: "audio/flac",
  ogg: "audio/ogg",
  m4a: "audio/mp4",
  mp4: "audio/mp4",
  webm: "audio/webm",
};

/** The turn's first audio as the `file` upload (`audio.<format>`). */
export function audioFile(item: MediaItem): FormFile {
  const m = item.dataUrl === undefined ? null : /^data:audio\/([^;,]+)(?:;[^,]*)?,(.*)$/s.exec(item.dataUrl);
  if (m === null) throw new TypeError("the audio to transcribe must be inline (a data:audio/… URL or a local file)");
  const format = m[1].toLowerCase() === "x-wav" ? "wav" : m[1].toLowerCase();
  return { b64_data: m[2], filename: `audio.${format}`, content_type: MIME_BY_FORMAT[format] ?? `audio/${format}` };
}

function readTranscript(json: unknown): Delta {
  const obj = asObject(json);
  if (!obj) return { error: { message: "the response body is not a JSON object", type: "ParseError" } };
  const usage = readUsage(obj.usage);
  const error = readApiError(obj);
  if (error) return { error, usage };
  if (typeof obj.text !== "string" || obj.text.length === 0) {
    return { usage, error: { message: "the response holds no transcript ('text')", type: "ParseError" } };
  }
  return { usage };
}

export const AUDIO_TRANSCRIPTION_ADAPTER: EndpointAdapter = {
  ...AUDIO_TRANSCRIPTION_ENDPOINT,
  usesHistory: false,
  headers: formHeaders,

  buildRequest(turn: Turn, ctx: BuildContext): Record<string, unknown> {
    const audio = turn.media?.find((m) => m.kind === "audio");
    if (audio === undefined) throw new TypeError("audio_transcription needs an audio input in every turn");
    const body: JsonObject = { file: audioFile(audio), model: turn.model ?? ctx.model };
    return mergeExtrasExcept(body, RESERVED, ctx.extraInputs, turn.extra);
  },
  encodeBody: encodeMultipartForm,

  parseEvent(data: string): Delta | undefined {
    const obj = parseSseJson(data);
    return obj ? readTranscript(obj) : undefined;
  },
  parseBody: readTranscript,
  parseTextBody(text: string): Delta {
    return text.trim().length > 0
      ? {}
      : { error: { message: "the response holds no transcript (an empty body)", type: "ParseError" } };
  },
  inputText: () => "",

  sampleResponses: {
    stream: `data: {"text":"the quick brown fox","usage":{"type":"duration","seconds":1}}\n\n`,
    body: `{"text":"the quick brown fox","usage":{"type":"tokens","input_tokens":12,"output_tokens":4,` +
      `"total_tokens":16}}`,
  },
};
