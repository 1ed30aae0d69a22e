/**
 * Worker side of {@linkcode WorkerTokenCounter}: loads the tokenizer named by the `init` message and answers
 * `count` batches in the order they arrive.
 *
 * Protocol (structured-clone messages):
 * - main → worker: `{type: "init", spec}` once, then `{type: "count", requests: [{id, texts}, …]}`;
 * - worker → main: `{type: "ready", name}` or `{type: "failed", message}` after init, then one
 *   `{type: "counted", id, counts}` or `{type: "error", id, message}` per request, in request order.
 */
/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />
import type { Tokenizer } from "./tokenizer.ts";
import { loadTokenizer } from "./load_tokenizer.ts";
import { builtinTokenizerFromSnapshot, type BuiltinTokenizerSnapshot } from "./builtin_tokenizer.ts";

export interface CountRequest {
  readonly id: number;
  readonly texts: readonly string[];
}

export type TokenCounterRequest =
  | { readonly type: "init"; readonly spec: string; readonly prebuilt?: BuiltinTokenizerSnapshot }
  | { readonly type: "count"; readonly requests: readonly CountRequest[] };

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

/** Installs the message handler; called by the worker entry (cli/worker_main.ts) for the token-counter role. */
export function startTokenCounterWorker(): void {
  let tokenizer: Promise<Tokenizer> | undefined;
  /** Serializes batches so replies leave in request order even while the tokenizer is still loading. */
  let queue: Promise<void> = Promise.resolve();

  self.onmessage = (event: MessageEvent<TokenCounterRequest>) => {
    const message = event.data;
    if (message.type === "init") {
      tokenizer = message.prebuilt !== undefined
        ? Promise.resolve(builtinTokenizerFromSnapshot(message.prebuilt))
        : loadTokenizer(message.spec);
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
      for (const request of message.requests) {
        if (tok === undefined) {
          post({ type: "error", id: request.id, message: failure });
          continue;
        }
        try {
          const counts = new Array<number>(request.texts.length);
          for (let i = 0; i < request.texts.length; i++) counts[i] = tok.count(request.texts[i]);
          post({ type: "counted", id: request.id, counts });
        } catch (error) {
          post({ type: "error", id: request.id, message: messageOf(error) });
        }
      }
    });
  };
}
