import assert from "node:assert/strict";
import {
  FD_RESERVE,
  MAX_SHARD_PROCESSES,
  maxShardProcesses,
  SHARD_PROCESSES_PER_CORE,
  shardProcessProblem,
} from "../../src/run/engine_layout.ts";

Deno.test("maxShardProcesses is bounded by the cores, the parent's open-file limit and an absolute cap", () => {
  assert.equal(maxShardProcesses({ cores: 2, fdLimit: 1_048_576 }), 2 * SHARD_PROCESSES_PER_CORE);
  assert.equal(maxShardProcesses({ cores: 64, fdLimit: FD_RESERVE + 3 * 10 }), 10, "three pipes per child");
  assert.equal(maxShardProcesses({ cores: 512, fdLimit: 1_048_576 }), MAX_SHARD_PROCESSES);
  assert.equal(maxShardProcesses({ cores: 1, fdLimit: 16 }), 1, "at least one");
});

Deno.test("shardProcessProblem says how many processes the load needs and what the machine allows", () => {
  const machine = { cores: 16, fdLimit: 1024 };
  assert.equal(shardProcessProblem({ shards: 64 }, machine), undefined);
  assert.equal(
    shardProcessProblem({ shards: 1303, concurrency: 1_000_000, perProcess: 768 }, machine),
    "--concurrency 1,000,000 needs 1,303 shard processes of 768 connections each, but this machine runs at most " +
      "64 (4 per core on 16 cores, 3 pipes each within the open-file limit of 1,024, 256 in all); raise the " +
      "open-file limit (ulimit -n), lower --concurrency or --workers, or spread the run over machines " +
      "(infermeter kube).",
  );
  assert.match(shardProcessProblem({ shards: 999 }, machine)!, /^999 shard processes were asked for, but/);
});
