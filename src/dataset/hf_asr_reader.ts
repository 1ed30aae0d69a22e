/**
 * AIPerf 0.13's speech-recognition datasets (librispeech, voxpopuli, gigaspeech, ami, spgispeech): each row with
 * audio bytes of at most 30 seconds becomes one single-turn conversation asking "Transcribe this audio." with the
 * clip re-encoded as 16-bit WAV (`hf_media.ts`). Rows without audio bytes or longer than 30 s are skipped, as AIPerf;
 * audio in a container infermeter cannot decode stops the run with the row named rather than skipping it silently.
 */
import type { Conversation } from "./conversation.ts";
import { DatasetError } from "./dataset_error.ts";
import { audioBytes, AudioFormatError, decodeAudio, durationSeconds, encodeWav16, wavMedia } from "./hf_media.ts";
import { conversationId, type HfRowReader } from "./hf_reader.ts";

export const ASR_PROMPT = "Transcribe this audio.";
export const MAX_CLIP_SECONDS = 30;

export function asrReader(audioColumn: string): HfRowReader {
  return async (rows, ctx) => {
    const conversations: Conversation[] = [];
    let index = -1;
    for await (const row of rows) {
      index++;
      if (ctx.limit !== undefined && conversations.length >= ctx.limit) break;
      const bytes = audioBytes(row[audioColumn]);
      if (bytes === undefined) continue;
      let audio;
      try {
        audio = await decodeAudio(bytes);
      } catch (err) {
        if (err instanceof AudioFormatError) {
          throw new DatasetError(ctx.where, undefined, `row ${index}: ${err.message}`);
        }
        throw err;
      }
      if (durationSeconds(audio) > MAX_CLIP_SECONDS) continue;
      conversations.push({
        id: conversationId(ctx.name, conversations.length),
        turns: [{ texts: [ASR_PROMPT], media: [wavMedia(encodeWav16(audio))] }],
      });
    }
    return conversations;
  };
}
