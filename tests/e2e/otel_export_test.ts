/**
 * `--otel-url` against an OTLP/HTTP receiver on loopback that decodes what arrives (protobuf with a reader written
 * from the .proto field numbers, or JSON): AIPerf's metric names, units and attributes, numbers that agree with the
 * run's own records, the credential header sent yet never shown, and a receiver that fails or is absent never failing
 * the run.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  assertExit,
  readJson,
  readJsonl,
  recordValue,
  runCli,
  startSim,
  tempDir,
  unusedPort,
  walkFiles,
} from "./cli_harness.ts";
import { decodeMessage } from "../export/_otlp_decode.ts";

const SECRET = "otel-s3cr3t";

interface Received {
  readonly contentType: string;
  readonly authorization: string | null;
  readonly path: string;
  readonly body: Record<string, unknown>;
}

/** An OTLP/HTTP receiver: decodes every export; answers `status`. */
function receiver(status = 200) {
  const received: Received[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const bytes = new Uint8Array(await req.arrayBuffer());
    const contentType = req.headers.get("content-type") ?? "";
    const body = contentType === "application/json"
      ? JSON.parse(new TextDecoder().decode(bytes))
      : decodeMessage(bytes);
    received.push({
      contentType,
      authorization: req.headers.get("authorization"),
      path: new URL(req.url).pathname,
      body,
    });
    return status === 200
      ? new Response(new Uint8Array(0), { headers: { "content-type": "application/x-protobuf" } })
      : new Response("collector overloaded", { status });
  });
  return {
    received,
    url: `127.0.0.1:${server.addr.port}`,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}

type Json = Record<string, unknown>;
type Attr = { key: string; value: Record<string, unknown> };

function attrs(list: unknown): Record<string, unknown> {
  return Object.fromEntries((list as Attr[] ?? []).map((a) => [a.key, Object.values(a.value)[0]]));
}

function metrics(body: Json): Json[] {
  const rm = (body.resourceMetrics as Json[])[0];
  return ((rm.scopeMetrics as Json[])[0].metrics as Json[]);
}

function points(body: Json, name: string): Json[] {
  const m = metrics(body).find((x) => x.name === name);
  assert.ok(m, `no metric ${name} in ${metrics(body).map((x) => x.name).join(", ")}`);
  return ((m.histogram ?? m.sum) as Json).dataPoints as Json[];
}

function phasePoint(body: Json, name: string, phase: string): Json {
  const p = points(body, name).find((x) => attrs(x.attributes)["aiperf.benchmark_phase"] === phase);
  assert.ok(p, `${name} has no ${phase} point`);
  return p;
}

async function profile(cwd: string, sim: string, otelUrl: string, extra: readonly string[] = []) {
  return await runCli([
    "profile",
    "-m",
    "m",
    "--url",
    sim,
    "--streaming",
    "--request-count",
    "8",
    "--concurrency",
    "2",
    "--warmup-request-count",
    "2",
    "--artifact-dir",
    "art",
    "--otel-url",
    otelUrl,
    "--otel-export-interval",
    "0.2",
    ...extra,
  ], { cwd, timeoutMs: 90_000 });
}

for (const protocol of ["http/protobuf", "http/json"] as const) {
  Deno.test(`otel export (${protocol}) streams AIPerf's instruments with figures equal to the run's records`, async () => {
    await using tmp = await tempDir();
    await using sim = await startSim(["--ttft", "5", "--itl", "1"]);
    await using otlp = receiver();
    const run = await profile(tmp.path, sim.url, otlp.url, [
      "--otel-protocol",
      protocol,
      "--otel-resource-attributes",
      "team=perf,site=lab",
      "--otel-headers",
      `authorization=Bearer%20${SECRET}`,
    ]);
    assertExit(run, 0);
    assert.ok(otlp.received.length >= 1, "no export arrived");
    for (const r of otlp.received) {
      assert.equal(r.path, "/v1/metrics");
      assert.equal(r.contentType, protocol === "http/json" ? "application/json" : "application/x-protobuf");
      assert.equal(r.authorization, `Bearer ${SECRET}`);
    }
    const last = otlp.received.at(-1)!.body;
    const summary = await readJson(join(tmp.path, "art", "profile_export_aiperf.json"));
    const resource = attrs(((last.resourceMetrics as Json[])[0].resource as Json).attributes);
    assert.deepEqual(resource, {
      "service.name": "infermeter",
      "service.instance.id": "records_manager",
      "aiperf.benchmark.id": summary.benchmark_id,
      "aiperf.endpoint.type": "chat",
      "aiperf.model.name": "m",
      team: "perf",
      site: "lab",
    });
    const scope = (((last.resourceMetrics as Json[])[0].scopeMetrics as Json[])[0].scope as Json).name;
    assert.equal(scope, "aiperf.records");

    // Request latency under its GenAI name, in seconds: its sum is the records' latencies.
    const records = (await readJsonl(join(tmp.path, "art", "profile_export.jsonl"))).map((l) => l.record);
    assert.equal(records.length, 8);
    const duration = phasePoint(last, "gen_ai.client.operation.duration", "profiling");
    assert.equal(duration.count, "8");
    const latencySec = records.reduce((s, r) => s + recordValue(r, "request_latency"), 0) / 1000;
    assert.ok(Math.abs((duration.sum as number) - latencySec) < 1e-9 * latencySec, `${duration.sum} vs ${latencySec}`);
    assert.equal(phasePoint(last, "gen_ai.client.operation.duration", "warmup").count, "2");
    assert.deepEqual(attrs(duration.attributes), {
      "aiperf.worker.id": attrs(duration.attributes)["aiperf.worker.id"],
      "aiperf.benchmark_phase": "profiling",
      "aiperf.was_cancelled": false,
      "aiperf.has_error": false,
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "_OTHER",
      "gen_ai.request.model": "m",
    });
    const tokens = phasePoint(last, "gen_ai.client.token.usage", "profiling");
    assert.equal(attrs(tokens.attributes)["gen_ai.token.type"], "output");
    assert.equal(tokens.sum, records.reduce((s, r) => s + recordValue(r, "output_token_count"), 0));
    // Other metrics keep AIPerf's name and base unit: TTST in ns.
    const ttst = metrics(last).find((m) => m.name === "aiperf.time_to_second_token")!;
    assert.equal(ttst.unit, "ns");
    const ttstNs = records.reduce((s, r) => s + recordValue(r, "time_to_second_token"), 0) * 1e6;
    const ttstPoint = phasePoint(last, "aiperf.time_to_second_token", "profiling");
    // Each value is exported in whole nanoseconds (as AIPerf's clocks give them): up to 0.5 ns off per record.
    const ttstTolerance = 0.5 * records.length + 1e-9 * ttstNs;
    assert.ok(Math.abs((ttstPoint.sum as number) - ttstNs) <= ttstTolerance, `${ttstPoint.sum} vs ${ttstNs}`);

    // Phase progress as counters: every request sent and completed, none in flight at the end.
    const completed = phasePoint(last, "aiperf.timing.requests.completed", "profiling");
    assert.equal(completed.asDouble, 8);
    assert.equal(attrs(completed.attributes)["aiperf.total_expected_requests"], "8");
    assert.equal(phasePoint(last, "aiperf.timing.requests.sent", "profiling").asDouble, 8);
    assert.equal(phasePoint(last, "aiperf.timing.requests.in_flight", "profiling").asDouble, 0);
    assert.equal(phasePoint(last, "aiperf.timing.requests.completed", "warmup").asDouble, 2);

    // The credential reached the collector only.
    assert.ok(!run.stdout.includes(SECRET) && !run.stderr.includes(SECRET));
    for (const file of await walkFiles(tmp.path)) {
      assert.ok(!(await Deno.readTextFile(join(tmp.path, file))).includes(SECRET), `${file} leaks the OTLP header`);
    }
  });
}

Deno.test("otel export that the collector refuses or cannot reach warns and leaves the run and its files whole", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "2", "--itl", "0.2"]);
  await using failing = receiver(500);
  for (const [name, url] of [["refused", failing.url], ["absent", `127.0.0.1:${unusedPort()}`]] as const) {
    const cwd = join(tmp.path, name);
    await Deno.mkdir(cwd);
    const run = await profile(cwd, sim.url, url);
    assertExit(run, 0);
    assert.match(run.stderr, /OpenTelemetry export to http:\/\/127\.0\.0\.1:\d+\/v1\/metrics failed/);
    const summary = await readJson(join(cwd, "art", "profile_export_aiperf.json"));
    assert.equal((summary.request_count as { avg: number }).avg, 8);
    const manifest = await readJson<{ files: { role: string }[] }>(join(cwd, "art", "run_manifest.json"));
    assert.ok(manifest.files.some((f) => f.role === "records_jsonl"));
  }
  assert.ok(failing.received.length >= 1, "the failing collector was never called");
});
