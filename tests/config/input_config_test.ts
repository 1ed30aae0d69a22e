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
  const input = toInputConfig(config).input as Record<string, unknown>;
  assert.deepEqual(input.headers, { Authorization: "<redacted>", "X-Trace": "1" });
  assert.deepEqual(input.extra, { hf_token: "<redacted>", max_tokens: 9 });
});

Deno.test("toInputConfig nests the configuration like AIPerf's input_config", async () => {
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
    endpoint: {
      model_names: ["Qwen/Qwen3-0.6B"],
      model_selection_strategy: "round_robin",
      type: "chat",
      streaming: true,
      url: "http://localhost:8000",
      urls: ["http://localhost:8000"],
      timeout_seconds: 21600,
      use_legacy_max_tokens: false,
      use_server_token_count: false,
      connection_reuse_strategy: "pooled",
    },
    input: {
      extra: {},
      headers: {},
      num_dataset_entries: 100,
      goodput: { request_latency: 250 },
      prompt: { input_tokens: { mean: 100, stddev: 0 }, output_tokens: { mean: 200, stddev: 0 } },
    },
    loadgen: {
      concurrency: 4,
      arrival_pattern: "concurrency_burst",
      benchmark_duration: 10,
      benchmark_grace_period: "inf",
    },
    output: { artifact_directory: "artifacts", export_level: "records" },
    tokenizer: { name: "builtin" },
    service: { log_level: "INFO", ui_type: "none" },
  });
});
