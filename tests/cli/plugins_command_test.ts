import assert from "node:assert/strict";
import { assertExit, runCli } from "../e2e/cli_harness.ts";
import { findCategory, pluginCatalog, validateCatalog } from "../../src/cli/plugin_catalog.ts";
import { ENDPOINTS } from "../../src/endpoints/endpoint_registry.ts";
import { DATASET_LOADERS } from "../../src/dataset/dataset_loaders.ts";
import { METRIC_REGISTRY } from "../../src/metrics/metric_registry.ts";

const cwd = Deno.cwd();

Deno.test("infermeter plugins: the package, every category with its names, one category, one entry", async () => {
  const summary = await runCli(["plugins"], { cwd });
  assertExit(summary, 0);
  const total = (await pluginCatalog()).reduce((n, c) => n + c.entries.length, 0);
  assert.match(summary.stdout, new RegExp(`│ infermeter │ \\S+ +│ +${total} │`));
  assert.match(summary.stdout, /infermeter plugins --all/);

  const all = await runCli(["plugins", "--all"], { cwd });
  assertExit(all, 0);
  for (const title of ["Endpoint Types", "Custom Dataset Types", "Load Strategies", "Outputs", "Metrics"]) {
    assert.match(all.stdout, new RegExp(title), title);
  }
  assert.match(all.stdout, /video_generation/);

  const endpoints = await runCli(["plugins", "endpoint"], { cwd });
  assertExit(endpoints, 0);
  for (const name of ENDPOINTS.names()) assert.match(endpoints.stdout, new RegExp(`│ ${name} `), name);

  const datasets = await runCli(["plugins", "dataset"], { cwd });
  assert.match(datasets.stdout, /│ weka_trace +│ Weka agent traces/, "every dataset type AIPerf names is built");
  assert.doesNotMatch(datasets.stdout, /Not built yet/);

  const one = await runCli(["plugins", "endpoint", "audio_transcription"], { cwd });
  assertExit(one, 0);
  assert.match(one.stdout, /endpoint:audio_transcription/);
  assert.match(one.stdout, /Path: +\/v1\/audio\/transcriptions/);
  assert.match(one.stdout, /Body: +multipart\/form-data/);

  const strategy = await runCli(["plugins", "timing_strategy", "fixed_schedule", "--json"], { cwd });
  assertExit(strategy, 0);
  assert.match(JSON.parse(strategy.stdout).Options, /--fixed-schedule/);
});

Deno.test("infermeter plugins --json lists every category; unknown names exit 2 with a hint", async () => {
  const json = await runCli(["plugins", "--json"], { cwd });
  assertExit(json, 0);
  const listed = JSON.parse(json.stdout) as { category: string; plugins: string[] }[];
  assert.deepEqual(listed.find((c) => c.category === "custom_dataset_loader")?.plugins, DATASET_LOADERS.names());
  assert.equal(listed.find((c) => c.category === "metric")?.plugins.length, METRIC_REGISTRY.all.length);

  const unknown = await runCli(["plugins", "endpont"], { cwd });
  assertExit(unknown, 2);
  assert.match(unknown.stderr, /no plugin category 'endpont'; did you mean 'endpoint'\?/);
  const entry = await runCli(["plugins", "endpoint", "chta"], { cwd });
  assertExit(entry, 2);
  assert.match(entry.stderr, /did you mean 'chat'/);
});

Deno.test("infermeter plugins --validate passes for the built registries and reports what breaks them", async () => {
  const ok = await runCli(["plugins", "--validate"], { cwd });
  assertExit(ok, 0);
  assert.match(ok.stdout, /All checks passed/);
  const catalog = (await pluginCatalog()).map((c) =>
    c.name === "sim_route"
      ? { ...c, entries: c.entries.filter((e) => e.name !== "solido_rag") }
      : c.name === "metric"
      ? { ...c, entries: [...c.entries, c.entries[0]] }
      : c
  );
  assert.deepEqual(validateCatalog(catalog), [
    "metric: 'request_latency' is registered twice",
    "endpoint: 'solido_rag' has no serve-sim route",
  ]);
  assert.equal(findCategory(await pluginCatalog(), "load-strategy")?.name, "timing_strategy");
});
