/**
 * The OTel and MLflow exports against real receivers on loopback, beyond the test suite's in-process ones: a real
 * OpenTelemetry Collector (any build with the OTLP receiver and the OTLP/HTTP exporter; `otelcol/` here builds a
 * minimal one) forwarding what it accepted, as JSON, to a receiver in this script; and a real MLflow tracking server
 * (`mlflow server` from PyPI), read back through its REST API. Both tools run one `serve-sim` benchmark; every check
 * prints ok or FAIL, and the exit code is 1 when one failed.
 *
 *   python3 -m venv /tmp/mlflow-venv && /tmp/mlflow-venv/bin/pip install mlflow
 *   (cd scripts/tracking/otelcol && go build -o /tmp/otelcol-min .)
 *   deno run -A scripts/tracking/check_real_receivers.ts --mlflow /tmp/mlflow-venv/bin/mlflow --otelcol /tmp/otelcol-min
 *
 * Either receiver may be left out. Weights & Biases has no server that runs offline: its upload is checked against
 * the calls W&B's client makes only (tests/e2e/wandb_export_test.ts).
 */
import { parseArgs } from "node:util";
import { join } from "node:path";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const REQUESTS = 10;
const WARMUP = 2;

const { values: args } = parseArgs({
  options: { mlflow: { type: "string" }, otelcol: { type: "string" }, keep: { type: "boolean" } },
});
if (args.mlflow === undefined && args.otelcol === undefined) {
  console.error("give --mlflow <mlflow executable> and/or --otelcol <collector binary>");
  Deno.exit(2);
}

let failures = 0;
function check(what: string, ok: boolean, detail = ""): void {
  if (!ok) failures++;
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${detail === "" ? "" : `: ${detail}`}`);
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

async function waitFor(what: string, probe: () => Promise<boolean>, seconds: number): Promise<void> {
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${what} did not start within ${seconds} s`);
}

const work = await Deno.makeTempDir({ prefix: "infermeter-receivers-" });
const children: Deno.ChildProcess[] = [];
function spawn(cmd: string, argv: string[], log: string): Deno.ChildProcess {
  const child = new Deno.Command(cmd, { args: argv, stdin: "null", stdout: "null", stderr: "piped" }).spawn();
  const file = Deno.openSync(join(work, log), { write: true, create: true, truncate: true });
  child.stderr.pipeTo(file.writable).catch(() => {});
  children.push(child);
  return child;
}

try {
  // The benchmark target.
  const simPort = freePort();
  spawn(
    Deno.execPath(),
    ["run", "-A", MAIN, "serve-sim", "--port", String(simPort), "--ttft", "5", "--itl", "1"],
    "sim.log",
  );
  const sim = `http://127.0.0.1:${simPort}`;
  await waitFor("serve-sim", async () => (await fetch(`${sim}/v1/models`)).ok, 60);

  // OTel: collector in front of a JSON receiver.
  const forwarded: Record<string, unknown>[] = [];
  let collectorUrl: string | undefined;
  let receiver: Deno.HttpServer<Deno.NetAddr> | undefined;
  if (args.otelcol !== undefined) {
    receiver = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
      forwarded.push(await req.json());
      return Response.json({});
    });
    const port = freePort();
    const config = join(work, "collector.yaml");
    await Deno.writeTextFile(
      config,
      [
        "receivers:",
        "  otlp:",
        "    protocols:",
        "      http:",
        `        endpoint: 127.0.0.1:${port}`,
        "exporters:",
        "  otlphttp:",
        `    endpoint: http://127.0.0.1:${receiver.addr.port}`,
        "    encoding: json",
        "    compression: none",
        "service:",
        "  telemetry:",
        "    metrics:",
        "      level: none",
        "  pipelines:",
        "    metrics:",
        "      receivers: [otlp]",
        "      exporters: [otlphttp]",
        "",
      ].join("\n"),
    );
    spawn(args.otelcol, ["--config", config], "collector.log");
    collectorUrl = `127.0.0.1:${port}`;
    await waitFor("the collector", async () => {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      conn.close();
      return true;
    }, 60);
  }

  // MLflow: a tracking server with its own artifact store.
  let tracking: string | undefined;
  if (args.mlflow !== undefined) {
    const port = freePort();
    spawn(args.mlflow, [
      "server",
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--backend-store-uri",
      `sqlite:///${join(work, "mlflow.db")}`,
      "--artifacts-destination",
      join(work, "mlartifacts"),
    ], "mlflow.log");
    tracking = `http://127.0.0.1:${port}`;
    await waitFor("mlflow server", async () => (await fetch(`${tracking}/health`)).ok, 300);
  }

  const cwd = join(work, "run");
  await Deno.mkdir(cwd);
  const profile = await new Deno.Command(Deno.execPath(), {
    cwd,
    args: [
      "run",
      "-A",
      MAIN,
      "profile",
      "-m",
      "sim-model",
      "--url",
      sim,
      "--streaming",
      "--request-count",
      String(REQUESTS),
      "--warmup-request-count",
      String(WARMUP),
      "--concurrency",
      "2",
      "--artifact-dir",
      "art",
      "--otel-export-interval",
      "0.5",
      ...(collectorUrl === undefined ? [] : ["--otel-url", collectorUrl]),
      ...(tracking === undefined ? [] : ["--mlflow-tracking-uri", tracking, "--mlflow-experiment", "receivers-check"]),
    ],
  }).output();
  const stderr = new TextDecoder().decode(profile.stderr);
  check("profile exits 0", profile.code === 0, profile.code === 0 ? "" : stderr.slice(-2000));
  check("no export warning", !/WARNING.*(OpenTelemetry|MLflow)/.test(stderr), stderr.match(/WARNING.*/g)?.join(" | "));
  const art = join(cwd, "art");
  const summary = JSON.parse(await Deno.readTextFile(join(art, "profile_export_aiperf.json")));
  const records = (await Deno.readTextFile(join(art, "profile_export.jsonl"))).trim().split("\n").map((l) =>
    JSON.parse(l)
  );
  const latencySec = records.reduce((s, r) => s + r.metrics.request_latency.value, 0) / 1000;

  if (collectorUrl !== undefined) {
    await new Promise((r) => setTimeout(r, 2000)); // the collector's exporter sends on its own schedule
    check("the collector forwarded exports", forwarded.length > 0, `${forwarded.length}`);
    type M = { name: string; histogram?: { dataPoints: P[] }; sum?: { dataPoints: P[] } };
    type P = {
      attributes: { key: string; value: { stringValue?: string } }[];
      count?: string;
      sum?: number;
      asDouble?: number;
    };
    const last = forwarded.at(-1) as {
      resourceMetrics: { resource: { attributes: P["attributes"] }; scopeMetrics: { metrics: M[] }[] }[];
    } | undefined;
    const metrics = last?.resourceMetrics[0].scopeMetrics[0].metrics ?? [];
    const phase = (p: P) => p.attributes.find((a) => a.key === "aiperf.benchmark_phase")?.value.stringValue;
    const duration = metrics.find((m) => m.name === "gen_ai.client.operation.duration")?.histogram?.dataPoints.find((
      p,
    ) => phase(p) === "profiling");
    check("collector: gen_ai.client.operation.duration count", duration?.count === String(REQUESTS), duration?.count);
    check(
      "collector: its sum equals the records' latencies",
      duration?.sum !== undefined && Math.abs(duration.sum - latencySec) < 1e-9 * latencySec,
      `${duration?.sum} vs ${latencySec}`,
    );
    const id = last?.resourceMetrics[0].resource.attributes.find((a) => a.key === "aiperf.benchmark.id")?.value
      .stringValue;
    check("collector: resource aiperf.benchmark.id", id === summary.benchmark_id, id);
    const completed = metrics.find((m) => m.name === "aiperf.timing.requests.completed")?.sum?.dataPoints.find((p) =>
      phase(p) === "profiling"
    );
    check("collector: aiperf.timing.requests.completed", completed?.asDouble === REQUESTS, String(completed?.asDouble));
    check("collector: instruments forwarded", metrics.length >= 20, `${metrics.length}`);
  }

  if (tracking !== undefined) {
    const api = async (path: string, body?: unknown) => {
      const res = await fetch(`${tracking}${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return await res.json();
    };
    const experiment =
      (await api("/api/2.0/mlflow/experiments/get-by-name?experiment_name=receivers-check")).experiment;
    const runs = (await api("/api/2.0/mlflow/runs/search", { experiment_ids: [experiment.experiment_id] })).runs ?? [];
    check("mlflow: one run in the experiment", runs.length === 1, `${runs.length}`);
    const run = runs[0];
    const byKey = (list: { key: string; value: unknown }[] = []) =>
      Object.fromEntries(list.map((x) => [x.key, x.value]));
    const params = byKey(run?.data?.params);
    const metrics = byKey(run?.data?.metrics) as Record<string, number>;
    const tags = byKey(run?.data?.tags);
    check("mlflow: run finished", run?.info?.status === "FINISHED", run?.info?.status);
    check("mlflow: run name", run?.info?.run_name === `infermeter-${String(summary.benchmark_id).slice(0, 8)}`);
    check(
      "mlflow: params",
      params["timing.mode"] === "concurrency" && params["loadgen.request_count"] === String(REQUESTS),
    );
    check("mlflow: request_latency = JSON avg", metrics.request_latency === summary.request_latency.avg);
    check(
      "mlflow: time_to_first_token.p99 = JSON p99",
      metrics["time_to_first_token.p99"] === summary.time_to_first_token.p99,
    );
    check("mlflow: tags", tags.benchmark_id === summary.benchmark_id && tags["aiperf.was_cancelled"] === "false");
    const history = await api(
      `/api/2.0/mlflow/metrics/get-history?run_id=${run.info.run_id}&metric_key=live.gen_ai.client.operation.duration`,
    );
    check(
      "mlflow: live values, one per request",
      history.metrics?.length === REQUESTS + WARMUP,
      `${history.metrics?.length}`,
    );
    const listed = await api(`/api/2.0/mlflow/artifacts/list?run_id=${run.info.run_id}&path=exports`);
    const names = (listed.files ?? []).map((f: { path: string }) => f.path);
    check("mlflow: artifacts listed", names.includes("exports/profile_export_aiperf.json"), names.join(", "));
    const remote = new Uint8Array(
      await (await fetch(
        `${tracking}/api/2.0/mlflow-artifacts/artifacts/${experiment.experiment_id}/${run.info.run_id}/artifacts/exports/profile_export.jsonl`,
      )).arrayBuffer(),
    );
    const local = await Deno.readFile(join(art, "profile_export.jsonl"));
    check(
      "mlflow: profile_export.jsonl stored byte for byte",
      remote.length === local.length && remote.every((b, i) => b === local[i]),
    );
    const metadata = JSON.parse(await Deno.readTextFile(join(art, "mlflow_export.json")));
    check("mlflow_export.json names the run", metadata.run_id === run.info.run_id);
  }
  await receiver?.shutdown();
} finally {
  for (const child of children) {
    try {
      child.kill("SIGTERM");
    } catch {
      // already gone
    }
    await child.status;
  }
  if (!args.keep) await Deno.remove(work, { recursive: true }).catch(() => {});
  else console.log(`kept ${work}`);
}
console.log(failures === 0 ? "all checks passed" : `${failures} check(s) failed`);
Deno.exit(failures === 0 ? 0 : 1);
