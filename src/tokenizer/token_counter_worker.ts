/**
 * Worker side of {@linkcode WorkerTokenCounter}: loads the tokenizer named by the `init` message and answers
 * `count` batches in the order they arrive.
 *
 * Protocol (structured-clone messages):
 * - main → worker: `{type: "init", spec, shared?}` once (with `shared`, the main thread's tables: nothing is
 *   loaded), then `{type: "count", ids, textCounts, utf8, ends}` batches:
 *   request `ids[k]` has `textCounts[k]` texts; all texts are UTF-8 in one transferred `utf8` buffer, text `j`
 *   ending at byte `ends[j]`. Sending bytes instead of strings keeps the main thread's cost of a batch to one
 *   native `encodeInto` per text and a buffer transfer, with nothing for the structured-clone serializer to
 *   walk (hundreds of response texts per batch at high rates);
 * - worker → main: `{type: "ready", name}` or `{type: "failed", message}` after init, then one
 *   `{type: "counted", id, counts}` or `{type: "error", id, message}` per request, in request order.
 */
/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />
import type { SharedTokenizer, Tokenizer } from "./tokenizer.ts";
import { loadTokenizer } from "./load_tokenizer.ts";
import type { HfBpeTables } from "./hf_bpe_tables.ts";

/** One batch of count requests, packed for transfer (see the protocol above). */
export interface CountBatch {
  readonly ids: readonly number[];
  readonly textCounts: readonly number[];
  readonly utf8: Uint8Array<ArrayBuffer>;
  readonly ends: Uint32Array<ArrayBuffer>;
}

/** Packs `texts` of requests `ids` into a {@linkcode CountBatch} (the caller transfers its two buffers). */
export function packCountBatch(requests: readonly { id: number; texts: readonly string[] }[]): CountBatch {
  let maxBytes = 0;
  let textTotal = 0;
  for (const r of requests) {
    textTotal += r.texts.length;
    for (const t of r.texts) maxBytes += t.length * 3;
  }
  const utf8 = new Uint8Array(maxBytes);
  const ends = new Uint32Array(textTotal);
  const encoder = new TextEncoder();
  let at = 0;
  let j = 0;
  for (const r of requests) {
    for (const t of r.texts) {
      if (t.length > 0) at += encoder.encodeInto(t, utf8.subarray(at)).written;
      ends[j++] = at;
    }
  }
  return { ids: requests.map((r) => r.id), textCounts: requests.map((r) => r.texts.length), utf8, ends };
}

export type TokenCounterRequest =
  | { readonly type: "init"; readonly spec: string; readonly shared?: SharedTokenizer }
  | ({ readonly type: "count" } & CountBatch);

export type TokenCounterReply =
  | { readonly type: "ready"; readonly name: string }
  | { readonly type: "failed"; readonly message: string }
  | { readonly type: "counted"; readonly id: number; readonly counts: number[] }
  | { readonly type: "error"; readonly id: number; readonly message: string };

function post(reply: TokenCounterReply): void {
  self.postMessage(reply);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A tokenizer over another thread's tables ({@linkcode Tokenizer.share}). */
async function fromShared(shared: SharedTokenizer): Promise<Tokenizer> {
  const { HfBpeTokenizer } = await import("./hf_bpe_tokenizer.ts");
  return new HfBpeTokenizer(shared.name, shared.tables as HfBpeTables);
}

/** Installs the message handler; called by the worker entry (cli/worker_main.ts) for the token-counter role. */
export function startTokenCounterWorker(): void {
  let tokenizer: Promise<Tokenizer> | undefined;
  /** Serializes batches so replies leave in request order even while the tokenizer is still loading. */
  let queue: Promise<void> = Promise.resolve();

  self.onmessage = (event: MessageEvent<TokenCounterRequest>) => {
    const message = event.data;
    if (message.type === "init") {
      tokenizer = message.shared !== undefined ? fromShared(message.shared) : loadTokenizer(message.spec);
      queue = tokenizer.then(
        (tok) => post({ type: "ready", name: tok.name }),
        (error) => post({ type: "failed", message: messageOf(error) }),
      );
      return;
    }
    const pending = tokenizer;
    queue = queue.then(async () => {
      let tok: Tokenizer | undefined;
      let failure = "the token counter worker received a count before init";
      if (pending !== undefined) {
        try {
          tok = await pending;
        } catch (error) {
          failure = messageOf(error);
        }
      }
      const decoder = new TextDecoder();
      let j = 0;
      let start = 0;
      for (let k = 0; k < message.ids.length; k++) {
        const id = message.ids[k];
        const n = message.textCounts[k];
        const counts = new Array<number>(n);
        let failed: string | undefined = tok === undefined ? failure : undefined;
        for (let i = 0; i < n; i++, j++) {
          const end = message.ends[j];
          if (failed === undefined) {
            try {
              counts[i] = start === end
                ? tok!.count("")
                : tok!.count(decoder.decode(message.utf8.subarray(start, end)));
            } catch (error) {
              failed = messageOf(error);
            }
          }
          start = end;
        }
        post(failed === undefined ? { type: "counted", id, counts } : { type: "error", id, message: failed });
      }
    });
  };
}
