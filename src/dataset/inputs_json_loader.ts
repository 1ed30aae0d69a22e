/**
 * AIPerf's `inputs_json` format: an `inputs.json` written by infermeter or AIPerf,
 * `{"data": [{"session_id": "...", "payloads": [<request body>, ...]}, ...]}`, replayed as it was sent.
 *
 * Each entry is one conversation (its `session_id`, unique), each payload one turn sent verbatim (serialized
 * compactly; no endpoint formatting, no `--extra-inputs`, no history added). The file is one JSON document, so it
 * is read whole. Detected from a `data` list whose first item has a `payloads` list, or from a `.json` file whose
 * first line opens an object.
 */
import type { Conversation, Dataset } from "./conversation.ts";
import { DatasetError } from "./dataset_error.ts";
import type { DatasetLoader } from "./dataset_loader.ts";
import { describeJson, excerpt, isObject, unreadable } from "./json_record.ts";
import { INPUTS_JSON_FORMAT } from "./dataset_formats.ts";

export const INPUTS_JSON = INPUTS_JSON_FORMAT.name;

export function canLoadInputsJson(record: unknown): boolean {
  if (!isObject(record) || !Array.isArray(record.data) || record.data.length === 0) return false;
  const first = record.data[0];
  return isObject(first) && Array.isArray(first.payloads);
}

export async function loadInputsJson(path: string): Promise<Dataset> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    throw unreadable(path, error);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new DatasetError(path, undefined, `is not valid JSON (${reason}); expected an inputs.json document`, {
      cause: error,
    });
  }
  if (!isObject(doc) || !Array.isArray(doc.data)) {
    throw new DatasetError(
      path,
      undefined,
      `expected {"data": [{"session_id": …, "payloads": […]}]} (got ${describeJson(doc)}: ${excerpt(text)})`,
    );
  }
  const conversations: Conversation[] = [];
  const seen = new Set<string>();
  doc.data.forEach((entry: unknown, i: number) => {
    const at = `data[${i}]`;
    if (!isObject(entry)) {
      throw new DatasetError(path, undefined, `${at} must be an object (got ${describeJson(entry)})`);
    }
    const id = entry.session_id;
    if (typeof id !== "string" || id === "") {
      throw new DatasetError(path, undefined, `${at}.session_id must be a non-empty string (got ${describeJson(id)})`);
    }
    if (seen.has(id)) {
      throw new DatasetError(
        path,
        undefined,
        `${at}: session_id ${JSON.stringify(id)} appears twice; ids must be unique`,
      );
    }
    seen.add(id);
    const payloads = entry.payloads;
    if (!Array.isArray(payloads) || payloads.length === 0) {
      throw new DatasetError(path, undefined, `${at}.payloads must be a non-empty list of request bodies`);
    }
    const turns = payloads.map((payload: unknown, k: number) => {
      if (!isObject(payload)) {
        throw new DatasetError(
          path,
          undefined,
          `${at}.payloads[${k}] must be an object (got ${describeJson(payload)})`,
        );
      }
      return { texts: [], rawPayload: JSON.stringify(payload) };
    });
    conversations.push({ id, turns, contextMode: "message_array_with_responses" });
  });
  if (conversations.length === 0) throw new DatasetError(path, undefined, `has an empty "data" list; nothing to send`);
  return { conversations, defaultSampling: "sequential", source: "file", format: INPUTS_JSON };
}

export const inputsJsonLoader: DatasetLoader = {
  ...INPUTS_JSON_FORMAT,
  canLoad: canLoadInputsJson,
  canLoadText: (firstLine, path) => path.endsWith(".json") && firstLine.trim().startsWith("{"),
  load: loadInputsJson,
};
