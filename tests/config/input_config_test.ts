import assert from "node:assert/strict";
import { toInputConfig } from "../../src/config/input_config.ts";
import { parseProfileArgs } from "../../src/config/parse_profile_args.ts";
import { fakeIo } from "./_fake_io.ts";

const SECRETS = ["sk-live-123", "tok-456", "pw-789", "hf-000"];

Deno.test("toInputConfig never contains the API key or secret header and body values", async () => {
  const { config } = await parseProfileArgs(
    [
      "-m",
      "m",
      "--api-key",
      "sk-live-123",
      "-H",
      "Authorization: Bearer tok-456",
      "-H",
      "X-Trace: 1",
      "-u",
      "http://user:pw-789@host:1",
      "--extra-inputs",
      "hf_token:hf-000",
      "--extra-inputs",
      "max_tokens:9",
    ],
    fakeIo(),
  );
  const text = JSON.stringify(toInputConfig(config));
  for (const secret of SECRETS) assert.ok(!text.includes(secret), `${secret} leaked: ${text}`);
  assert.ok(!text.includes("api_key"), "no api_key field at all");
  const endpoint = toInputConfig(config).endpoint as Record<string, unknown>;
  assert.deepEqual(endpoint.headers, { Authorization: "<redacted>", "X-Trace": "1" });
  assert.deepEqual(endpoint.extra, { hf_token: "<redacted>", max_tokens: 9 });
});

Deno.test("toInputConfig writes AIPerf 0.13.s input_config layout: models, endpoint, datasets, phases, artifacts", async () => {
  const { config } = await parseProfileArgs(
    [
      "-m",
      "Qwen/Qwen3-0.6B",
      "--endpoint-type",
      "chat",
      "--streaming",
      "--isl",
      "100",
      "--osl",
      "200",
      "--concurrency",
      "4",
      "--benchmark-duration",
      "10",
      "--benchmark-grace-period",
      "inf",
      "--goodput",
      "request_latency:250",
    ],
    fakeIo(),
  );
  assert.deepEqual(toInputConfig(config), {
    models: { items: [{ name: "Qwen/Qwen3-0.6B" }] },
    endpoint: { urls: ["http://localhost:8000"], type: "chat", streaming: true },
    datasets: [{
      name: "main",
      type: "synthetic",
      entries: 100,
      prompts: { isl: { mean: 100, stddev: 0 }, osl: { mean: 200, stddev: 0 } },
    }],
    phases: [{
      name: "profiling",
      kind: "profiling",
      type: "concurrency",
      duration: 10,
      concurrency: 4,
      grace_period: "inf",
    }],
    slos: { request_latency: 250 },
    artifacts: { dir: "artifacts", records: ["jsonl"], auto_plot: false, plot_required: false },
    tokenizer: { name: "builtin" },
    otel: {},
    mlflow: {},
    wandb: {},
    runtime: { ui: "simple" },
  });
});

Deno.test("toInputConfig names a public dataset as AIPerf does (type public, its dataset name)", async () => {
  const { config } = await parseProfileArgs(["-m", "m", "--public-dataset", "spec_al_gsm8k"], fakeIo());
  const [dataset] = toInputConfig(config).datasets as Record<string, unknown>[];
  assert.equal(dataset.type, "public");
  assert.equal(dataset.dataset, "spec_al_gsm8k");
});
