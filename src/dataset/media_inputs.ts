/**
 * Media fields of AIPerf's single_turn records (`image`/`images`, `audio`/`audios`, `video`/`videos`) as
 * endpoint-neutral `MediaItem`s. Each value is a string (or, in a list, a `{"name", "contents": [strings]}` object):
 * - a data URL (`data:image/png;base64,…`) is sent as it is;
 * - an `http(s)://` URL (images, videos) is passed on for the server to fetch;
 * - audio may also be AIPerf's `wav,<base64>` / `mp3,<base64>`;
 * - anything else is a local file, read now and sent inline as a data URL (its type from its extension); a relative
 *   path is tried from the working directory (as AIPerf), then from the dataset file's directory.
 */
import type { MediaItem, MediaKind } from "./conversation.ts";
import { describeJson, isObject } from "./json_record.ts";

const MIME: Readonly<Record<MediaKind, Readonly<Record<string, string>>>> = {
  image: {
    png: "image/png",
    jpg: "image/jpeg",
    jpeg: "image/jpeg",
    gif: "image/gif",
    webp: "image/webp",
    bmp: "image/bmp",
  },
  audio: { wav: "audio/wav", mp3: "audio/mp3" },
  video: { mp4: "video/mp4", webm: "video/webm" },
};

/** The single and list field of each kind, in the order AIPerf renders them. */
export const MEDIA_FIELD_PAIRS: readonly (readonly [MediaKind, string, string])[] = [
  ["image", "image", "images"],
  ["audio", "audio", "audios"],
  ["video", "video", "videos"],
];

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

function readLocal(path: string, datasetFile: string): Uint8Array {
  const tries = [path];
  if (!path.startsWith("/")) {
    const slash = datasetFile.lastIndexOf("/");
    if (slash >= 0) tries.push(`${datasetFile.slice(0, slash)}/${path}`);
  }
  for (const p of tries) {
    try {
      return Deno.readFileSync(p);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }
  throw new Deno.errors.NotFound(path);
}

/**
 * One media string as a `MediaItem`.
 * @returns a reason string when the value cannot be used (the caller names the file and line).
 */
export function mediaItem(kind: MediaKind, value: string, datasetFile: string): MediaItem | string {
  if (value.startsWith("data:")) {
    return value.startsWith(`data:${kind}/`) && value.includes(",")
      ? { kind, dataUrl: value }
      : `is a data URL, but not a data:${kind}/…;base64,… one`;
  }
  if (kind === "audio") {
    const inline = /^(wav|mp3),(.+)$/s.exec(value);
    if (inline) return { kind, dataUrl: `data:audio/${inline[1]};base64,${inline[2]}` };
  }
  if (value.includes("://")) {
    if (kind === "audio") return "is a URL, but audio is sent inline: give a local file, 'wav,<base64>' or a data URL";
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return "is not a valid URL";
    }
    return url.protocol === "http:" || url.protocol === "https:" ? { kind, url: value } : "must be an http(s) URL";
  }
  const ext = value.slice(value.lastIndexOf(".") + 1).toLowerCase();
  const mime = MIME[kind][ext];
  if (mime === undefined) {
    return `names a file whose type is not one of ${Object.keys(MIME[kind]).join(", ")} (by its extension)`;
  }
  try {
    return { kind, dataUrl: `data:${mime};base64,${base64(readLocal(value, datasetFile))}` };
  } catch (err) {
    return err instanceof Deno.errors.NotFound
      ? "names a file that does not exist"
      : `cannot be read (${(err as Error).message})`;
  }
}

/**
 * The items of one field's value (a string, or a list of strings / `{"contents": [...]}` objects).
 * @returns the items, or a reason string naming the bad element.
 */
export function mediaItems(kind: MediaKind, name: string, value: unknown, datasetFile: string): MediaItem[] | string {
  const strings: string[] = [];
  if (typeof value === "string") strings.push(value);
  else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v = value[i];
      if (typeof v === "string") strings.push(v);
      else if (isObject(v) && Array.isArray(v.contents) && v.contents.every((c) => typeof c === "string")) {
        strings.push(...(v.contents as string[]));
      } else {
        return `"${name}"[${i}] must be a string or a {"name", "contents": [strings]} object (got ${describeJson(v)})`;
      }
    }
  } else return `"${name}" must be a string or a list (got ${describeJson(value)})`;
  const items: MediaItem[] = [];
  for (const s of strings) {
    if (s === "") continue;
    const item = mediaItem(kind, s, datasetFile);
    if (typeof item === "string") {
      return `"${name}" value ${JSON.stringify(s.length > 60 ? s.slice(0, 60) + "…" : s)} ${item}`;
    }
    items.push(item);
  }
  return items;
}
