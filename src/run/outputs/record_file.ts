/**
 * The per-record files (JSONL, raw) are written as records arrive, by a record sink: created before anything is sent
 * (a directory that cannot take them is an input error), and listed after the run, or reported with what they kept
 * when a write failed mid-run.
 */
import { InputError } from "../../base/input_error.ts";
import { errorReason } from "../unwritten_file.ts";
import type { OutputFile, OutputSink, OutputWriter, PublishContext, SinkContext } from "./output.ts";

export function openRecordFile(
  path: string,
  ctx: SinkContext,
  open: (onFailure: (err: unknown) => void) => Promise<OutputSink>,
): Promise<OutputSink> {
  return open(ctx.onWriteFailure(path)).catch((err) => {
    throw new InputError(`cannot create ${path}: ${errorReason(err)}`);
  });
}

export function finishRecordFile(file: OutputFile, ctx: PublishContext, writer: OutputWriter): Promise<void> {
  if (ctx.sink === undefined) return Promise.resolve(); // never opened: nothing was sent
  const lost = ctx.sink.unwritten?.();
  if (lost !== undefined) writer.failed({ ...lost, label: file.label });
  else writer.listed(file);
  return Promise.resolve();
}
