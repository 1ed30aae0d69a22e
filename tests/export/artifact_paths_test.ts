import assert from "node:assert/strict";
import { artifactPaths, exportBaseName, resolveArtifactDir, stimulusName } from "../../src/export/artifact_paths.ts";

const seed = {
  artifactDir: "./artifacts",
  artifactDirExplicit: false,
  modelNames: ["Qwen/Qwen3-0.6B"],
  endpointType: "chat",
  concurrency: undefined,
  requestRate: undefined,
} as const;

Deno.test("artifact dir of the seed commands: model with / as _, endpoint type, concurrency1", () => {
  // aiperf profile --model Qwen/Qwen3-0.6B --endpoint-type chat --streaming ... (no concurrency, no rate)
  assert.equal(resolveArtifactDir(seed), "artifacts/Qwen_Qwen3-0.6B-chat-concurrency1");
  assert.equal(
    resolveArtifactDir({ ...seed, endpointType: "completions" }),
    "artifacts/Qwen_Qwen3-0.6B-completions-concurrency1",
  );
});

Deno.test("artifact dir names concurrency and request rate like AIPerf", () => {
  assert.equal(stimulusName(10, 5), "concurrency10-request_rate5.0");
  assert.equal(stimulusName(undefined, 2.5), "request_rate2.5");
  assert.equal(stimulusName(4, undefined), "concurrency4");
  assert.equal(
    resolveArtifactDir({ ...seed, artifactDir: "out", concurrency: 8, requestRate: 100 }),
    "out/Qwen_Qwen3-0.6B-chat-concurrency8-request_rate100.0",
  );
});

Deno.test("artifact dir marks several models with _multi and keeps an explicit dir as is", () => {
  assert.equal(
    resolveArtifactDir({ ...seed, modelNames: ["Qwen/Qwen3-0.6B", "other"] }),
    "artifacts/Qwen_Qwen3-0.6B_multi-chat-concurrency1",
  );
  assert.equal(resolveArtifactDir({ ...seed, artifactDir: "my/run", artifactDirExplicit: true }), "my/run");
});

Deno.test("artifact paths use AIPerf's default file names", () => {
  assert.deepEqual(artifactPaths("artifacts/run"), {
    dir: "artifacts/run",
    summaryJson: "artifacts/run/profile_export_aiperf.json",
    summaryCsv: "artifacts/run/profile_export_aiperf.csv",
    recordsJsonl: "artifacts/run/profile_export.jsonl",
    rawJsonl: "artifacts/run/profile_export_raw.jsonl",
    consoleTxt: "artifacts/run/profile_export_console.txt",
    inputsJson: "artifacts/run/inputs.json",
    serverMetricsJson: "artifacts/run/server_metrics_export.json",
    serverMetricsCsv: "artifacts/run/server_metrics_export.csv",
    timeslicesJson: "artifacts/run/profile_export_aiperf_timeslices.json",
    timeslicesCsv: "artifacts/run/profile_export_aiperf_timeslices.csv",
    accuracyCsv: "artifacts/run/accuracy_results.csv",
    accuracyJsonl: "artifacts/run/accuracy_export.jsonl",
  });
});

Deno.test("profile export prefix renames every export and strips known suffixes", () => {
  const p = artifactPaths("d", "foo");
  assert.deepEqual(
    [
      p.summaryJson,
      p.summaryCsv,
      p.recordsJsonl,
      p.rawJsonl,
      p.consoleTxt,
      p.inputsJson,
      p.serverMetricsJson,
      p.accuracyCsv,
      p.accuracyJsonl,
    ],
    [
      "d/foo.json",
      "d/foo.csv",
      "d/foo.jsonl",
      "d/foo_raw.jsonl",
      "d/foo_console.txt",
      "d/inputs.json",
      "d/foo_server_metrics.json",
      "d/accuracy_results.csv", // AIPerf never prefixes it
      "d/foo_accuracy.jsonl",
    ],
  );
  for (const given of ["foo.json", "foo.jsonl", "foo.csv", "foo_raw.jsonl", "foo_console.txt"]) {
    assert.equal(exportBaseName(given), "foo", given);
  }
  assert.equal(exportBaseName(undefined), undefined);
});
