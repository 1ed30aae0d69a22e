import assert from "node:assert/strict";
import { ConfigError } from "../../src/config/config_error.ts";
import { parseProfileArgs } from "../../src/config/parse_profile_args.ts";
import { otlpHeaders, resourceAttributes, streamDomains } from "../../src/config/check_tracking_export.ts";
import { fakeIo } from "./_fake_io.ts";

async function problemsOf(argv: readonly string[], env: Record<string, string> = {}): Promise<readonly string[]> {
  try {
    await parseProfileArgs(["-m", "m", ...argv], fakeIo({ env }));
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    return error.problems;
  }
  return [];
}

Deno.test("--stream is read as AIPerf reads it: nothing or default is both domains, none wins", () => {
  assert.deepEqual(streamDomains([]), { metrics: true, timing: true });
  assert.deepEqual(streamDomains(["default"]), { metrics: true, timing: true });
  assert.deepEqual(streamDomains(["metrics"]), { metrics: true, timing: false });
  assert.deepEqual(streamDomains(["timing"]), { metrics: false, timing: true });
  assert.deepEqual(streamDomains(["metrics,timing"]), { metrics: true, timing: true });
  assert.deepEqual(streamDomains(["metrics", "none"]), { metrics: false, timing: false });
});

Deno.test("resource attributes are key=value pairs, comma-separated or repeated, later wins", () => {
  assert.deepEqual(resourceAttributes(["a=1, b = two", "a=3"]), { a: "3", b: "two" });
  assert.deepEqual(resourceAttributes(["url=http://x/?q=1"]), { url: "http://x/?q=1" });
  assert.throws(() => resourceAttributes(["novalue"]), /'novalue' is not key=value/);
  assert.throws(() => resourceAttributes(["k="]), /needs a key and a value/);
});

Deno.test("OTLP headers follow OTEL_EXPORTER_OTLP_HEADERS: URL-encoded values, no value quoted in an error", () => {
  assert.deepEqual(otlpHeaders("Authorization=Bearer%20tok,x-org=a%3Db"), [["Authorization", "Bearer tok"], [
    "x-org",
    "a=b",
  ]]);
  assert.deepEqual(otlpHeaders(undefined), []);
  assert.throws(
    () => otlpHeaders("s3cret-only"),
    (e: Error) => !e.message.includes("s3cret") && /entry 1/.test(e.message),
  );
});

Deno.test("profile refuses bad OTel, MLflow and W&B values before anything is sent, naming the flag", async () => {
  assert.deepEqual(await problemsOf(["--otel-url", "grpc://c:4317"]), [
    "--otel-url: 'grpc://c:4317': only http and https are supported (got grpc); OTLP/gRPC is not.",
  ]);
  assert.deepEqual(await problemsOf(["--otel-url", "c:4318", "--stream", "metrics,traces"]), [
    "--stream: 'traces' is not one of default, metrics, timing, none.",
  ]);
  assert.match((await problemsOf(["--stream", "metrics"]))[0], /--stream.*--otel-url/);
  assert.match((await problemsOf(["--mlflow-run-name", "r"]))[0], /--mlflow-run-name.*--mlflow-tracking-uri/);
  assert.match((await problemsOf(["--mlflow-tracking-uri", "file:///tmp/mlruns"]))[0], /file stores.*not supported/);
  assert.deepEqual(await problemsOf(["--wandb-project", "p"]), [
    "--wandb-project needs a Weights & Biases API key: set WANDB_API_KEY (or --wandb-api-key).",
  ]);
  assert.deepEqual(await problemsOf(["--wandb-project", "p"], { WANDB_API_KEY: "k" }), []);
  // A credential in the environment alone asks for nothing.
  assert.deepEqual(await problemsOf([], { WANDB_API_KEY: "k", MLFLOW_TRACKING_TOKEN: "t" }), []);
  const headerProblems = await problemsOf([], { OTEL_EXPORTER_OTLP_HEADERS: "s3cret-token" });
  assert.equal(headerProblems.length, 1);
  assert.ok(!headerProblems[0].includes("s3cret"), headerProblems[0]);
});

Deno.test("profile reads the OTel, MLflow and W&B options with AIPerf's defaults and the clients' variables", async () => {
  const { config } = await parseProfileArgs(
    ["-m", "m", "--otel-url", "c:4318", "--mlflow-tracking-uri", "http://127.0.0.1:5000", "--mlflow-tag", "team:perf"],
    fakeIo({
      env: {
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        AIPERF_OTEL_FLUSH_INTERVAL_SECONDS: "5",
        AIPERF_MLFLOW_EXPORT_TIMEOUT_SECONDS: "45",
        MLFLOW_TRACKING_TOKEN: "tok",
      },
    }),
  );
  assert.equal(config.otelProtocol, "http/json");
  assert.equal(config.otelExportInterval, 5);
  assert.equal(config.otelTimeout, 10);
  assert.equal(config.mlflowExperiment, "aiperf");
  assert.deepEqual(config.mlflowTags, { team: "perf" });
  assert.equal(config.mlflowTimeout, 45);
  assert.equal(config.mlflowTrackingToken, "tok");
  assert.equal(config.wandbBaseUrl, "https://api.wandb.ai");
});

Deno.test("service credentials stay out of the command line and input_config, URLs keep their host", async () => {
  const { toInputConfig } = await import("../../src/config/input_config.ts");
  const parsed = await parseProfileArgs([
    "-m",
    "m",
    "--otel-url",
    "http://u:otel-s3cr3t@127.0.0.1:4318",
    "--otel-headers",
    "authorization=hdr-s3cr3t",
    "--mlflow-tracking-uri",
    "http://alice:pw-s3cr3t@127.0.0.1:5000",
    "--mlflow-tracking-token",
    "tok-s3cr3t",
    "--wandb-project",
    "p",
    "--wandb-api-key",
    "key-s3cr3t",
  ], fakeIo());
  assert.ok(!parsed.redactedCommand.includes("s3cr3t"), parsed.redactedCommand);
  assert.match(parsed.redactedCommand, /--mlflow-tracking-uri 'http:\/\/<redacted>@127\.0\.0\.1:5000'/);
  const input = toInputConfig(parsed.config);
  assert.ok(!JSON.stringify(input).includes("s3cr3t"));
  assert.deepEqual(input.otel, { metrics_url: "http://<redacted>@127.0.0.1:4318/v1/metrics" });
  assert.deepEqual(input.mlflow, { tracking_uri: "http://<redacted>@127.0.0.1:5000", experiment: "aiperf" });
  assert.deepEqual(input.wandb, { project: "p" });
  // Empty when not asked for, as AIPerf writes them.
  const plain = toInputConfig((await parseProfileArgs(["-m", "m"], fakeIo())).config);
  assert.deepEqual([plain.otel, plain.mlflow, plain.wandb], [{}, {}, {}]);
  const keys = Object.keys(plain);
  assert.deepEqual(keys.slice(keys.indexOf("tokenizer"), keys.indexOf("tokenizer") + 4), [
    "tokenizer",
    "otel",
    "mlflow",
    "wandb",
  ]);
});
