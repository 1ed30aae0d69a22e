/**
 * The one guard every result file goes through: the whole file is written under a temporary name in its directory
 * and renamed over the final name, so a full disk or a removed directory leaves the earlier file (or none), never a
 * truncated one; the failure is recorded with the operating system's words and the run goes on writing the others.
 */
import type { Logger } from "../../ui/logger.ts";
import { describeUnwritten, errorReason, type UnwrittenFile } from "../unwritten_file.ts";
import type { OutputFile, OutputWriter } from "./output.ts";

/** Writes `data` to `path` atomically (temporary file + rename). */
export function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  return streamFileAtomic(
    path,
    (temp) => typeof data === "string" ? Deno.writeTextFile(temp, data) : Deno.writeFile(temp, data),
  );
}

/** Has `writeTo` write a temporary file beside `path`, then renames it to `path`; removes it on failure. */
export async function streamFileAtomic(path: string, writeTo: (temp: string) => Promise<void>): Promise<void> {
  // One name per file (the directory's lock keeps other runs out), so a leftover is replaced, never accumulated.
  const temp = `${path}.tmp`;
  try {
    await writeTo(temp);
    await Deno.rename(temp, path);
  } catch (err) {
    await Deno.remove(temp).catch(() => {});
    throw err;
  }
}

export class GuardedWriter implements OutputWriter {
  readonly written: OutputFile[] = [];
  readonly unwritten: UnwrittenFile[];
  readonly #logger: Logger;

  constructor(logger: Logger, unwritten: readonly UnwrittenFile[] = []) {
    this.#logger = logger;
    this.unwritten = [...unwritten];
  }

  write(file: OutputFile, data: string | Uint8Array): Promise<boolean> {
    return this.stream(
      file,
      (temp) => typeof data === "string" ? Deno.writeTextFile(temp, data) : Deno.writeFile(temp, data),
    );
  }

  async stream(file: OutputFile, writeTo: (path: string) => Promise<void>): Promise<boolean> {
    try {
      await streamFileAtomic(file.path, writeTo);
      this.written.push(file);
      return true;
    } catch (err) {
      this.failed({ label: file.label, path: file.path, reason: errorReason(err) });
      return false;
    }
  }

  listed(file: OutputFile): void {
    if (!this.unwritten.some((u) => u.path === file.path)) this.written.push(file);
  }

  failed(file: UnwrittenFile): void {
    this.unwritten.push(file);
    this.#logger.error(describeUnwritten(file));
  }
}
