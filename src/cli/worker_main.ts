/**
 * Entry of every infermeter Worker (see spawn_worker.ts). Messages posted to a worker are delivered only after
 * its module has finished evaluating, so the role's `onmessage` is in place before the first one arrives.
 */
import { currentWorkerRole } from "../runtime/spawn_worker.ts";

export async function startWorker(): Promise<void> {
  const role = currentWorkerRole();
  switch (role) {
    case "token-counter":
      (await import("../tokenizer/token_counter_worker.ts")).startTokenCounterWorker();
      return;
    case "engine-shard":
      (await import("../engine/shard_worker.ts")).startShardWorker();
      return;
    case "waker":
      (await import("../timing/waker_worker.ts")).startWakerWorker();
      return;
    case "records-reader":
      (await import("../report/records_worker.ts")).startRecordsWorker();
      return;
    default:
      throw new Error(`infermeter was started as a worker with an unknown role '${String(role)}'`);
  }
}
