/**
 * The rows of a Hugging Face dataset's data files, one at a time and in file order: Parquet a row group at a time
 * (a multi-gigabyte file is never read at once), JSON Lines a line at a time, and a `.json` file either as JSON Lines
 * or, when it starts with `[`, as one array streamed element by element. Parquet binary columns (image and audio
 * bytes) come back as `Uint8Array`, strings as strings, structs as objects and lists as arrays.
 */
import { DatasetError } from "./dataset_error.ts";
import { readJsonArray } from "./json_array_stream.ts";
import { readLines } from "./read_lines.ts";

/** One row: column name → value. */
export type HfRow = Readonly<Record<string, unknown>>;

/**
 * Yields the rows of `files` in order. Stopping early (`break`) stops reading.
 * @throws {DatasetError} for a file that is not valid Parquet or JSON, naming the file (and line for JSON Lines).
 */
export async function* readHfRows(files: readonly string[]): AsyncGenerator<HfRow> {
  for (const path of files) {
    if (path.endsWith(".parquet")) yield* parquetRows(path);
    else if (path.endsWith(".json") && await startsWithBracket(path)) yield* jsonArrayRows(path);
    else yield* jsonLinesRows(path);
  }
}

/** The rows of one Parquet file, a row group at a time. */
export async function* parquetRows(path: string): AsyncGenerator<HfRow> {
  // Imported here: only public datasets read Parquet, and the CLI's startup must not pay for it.
  const { parquetMetadataAsync, parquetReadObjects } = await import("hyparquet");
  const { compressors } = await import("hyparquet-compressors");
  const file = await Deno.open(path, { read: true });
  try {
    const size = (await file.stat()).size;
    const buffer = {
      byteLength: size,
      async slice(start: number, end = size): Promise<ArrayBuffer> {
        const bytes = new Uint8Array(end - start);
        await file.seek(start, Deno.SeekMode.Start);
        for (let off = 0; off < bytes.length;) {
          const n = await file.read(bytes.subarray(off));
          if (n === null) throw new RangeError(`unexpected end of file at byte ${start + off}`);
          off += n;
        }
        return bytes.buffer;
      },
    };
    let metadata;
    try {
      metadata = await parquetMetadataAsync(buffer);
    } catch (err) {
      throw new DatasetError(path, undefined, `is not a readable Parquet file: ${(err as Error).message}`);
    }
    let rowStart = 0;
    for (const group of metadata.row_groups) {
      const rowEnd = rowStart + Number(group.num_rows);
      let rows: Record<string, unknown>[];
      try {
        rows = await parquetReadObjects({ file: buffer, metadata, rowStart, rowEnd, compressors, utf8: false });
      } catch (err) {
        throw new DatasetError(
          path,
          undefined,
          `rows ${rowStart}–${rowEnd - 1} cannot be read: ${(err as Error).message}`,
        );
      }
      for (const row of rows) yield row;
      rowStart = rowEnd;
    }
  } finally {
    file.close();
  }
}

async function* jsonLinesRows(path: string): AsyncGenerator<HfRow> {
  for await (const line of readLines(path)) {
    if (line.text.trim() === "") continue;
    let row: unknown;
    try {
      row = JSON.parse(line.text);
    } catch (err) {
      throw new DatasetError(path, line.number, `is not valid JSON: ${(err as Error).message}`);
    }
    if (typeof row !== "object" || row === null || Array.isArray(row)) {
      throw new DatasetError(path, line.number, "expected a JSON object (one row)");
    }
    yield row as HfRow;
  }
}

async function* jsonArrayRows(path: string): AsyncGenerator<HfRow> {
  let index = 0;
  try {
    for await (const row of readJsonArray(path)) {
      if (typeof row !== "object" || row === null || Array.isArray(row)) {
        throw new DatasetError(path, undefined, `element ${index} is not a JSON object (one row)`);
      }
      index++;
      yield row as HfRow;
    }
  } catch (err) {
    if (err instanceof SyntaxError) throw new DatasetError(path, undefined, err.message);
    throw err;
  }
}

async function startsWithBracket(path: string): Promise<boolean> {
  const file = await Deno.open(path, { read: true });
  try {
    const head = new Uint8Array(256);
    const n = await file.read(head) ?? 0;
    const text = new TextDecoder().decode(head.subarray(0, n)).replace(/^\uFEFF/, "").trimStart();
    return text.startsWith("[");
  } finally {
    file.close();
  }
}
