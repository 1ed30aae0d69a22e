/**
 * The `waker` Worker's role (timing/wake_thread.ts): receives the shared control block, then sleeps and posts
 * until told to stop.
 */
/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />
import { runWaker } from "./wake_thread.ts";

export function startWakerWorker(): void {
  self.onmessage = (event: MessageEvent<SharedArrayBuffer>) => {
    self.onmessage = null;
    runWaker(event.data, (generation) => self.postMessage(generation));
    self.close();
  };
}
