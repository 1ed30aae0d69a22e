/**
 * The embedded HTTP API as a Hono app (testable with `app.request()`): the routes of AIPerf's in-process API, with
 * AIPerf's response shapes, reading only the provider the run hands in. Routes and shapes are described in
 * `openapi_doc.ts` (served as `/openapi.json`, `/docs`, `/redoc`).
 */
import { Hono } from "hono";
import type { JsonObject } from "../export/json_export.ts";
import type { ApiPhase, ApiProvider } from "./api_provider.ts";
import { renderDocsPage } from "./docs_page.ts";
import { renderLivePrometheus } from "./live_prometheus.ts";
import { openApiDoc } from "./openapi_doc.ts";
import { type HostPolicy, isAllowedHost } from "./host_check.ts";
import { listServedFiles, resolveServedFile } from "./served_files.ts";

const JSON_HEADERS = { "content-type": "application/json" } as const;
const TEXT_HEADERS = { "content-type": "text/plain; charset=utf-8" } as const;
const PROMETHEUS_HEADERS = { "content-type": "text/plain; version=0.0.4; charset=utf-8" } as const;
const HTML_HEADERS = { "content-type": "text/html; charset=utf-8" } as const;
const FILES_PREFIX = "/api/results/files/";

/** Without a policy the app answers every host (in-process tests); the server always passes one. */
export function createApiApp(provider: ApiProvider, hosts?: HostPolicy): Hono {
  const app = new Hono();
  const json = (value: unknown, status = 200) => new Response(JSON.stringify(value), { status, headers: JSON_HEADERS });
  const text = (body: string, status = 200) => new Response(body, { status, headers: TEXT_HEADERS });
  const doc = openApiDoc(provider.identity.version);

  app.onError((err) => json({ detail: `Internal error: ${err.message}` }, 500));
  app.notFound((c) => json({ detail: `Not Found: ${new URL(c.req.url).pathname}` }, 404));
  if (hosts !== undefined) {
    app.use("*", async (c, next) => {
      const host = c.req.header("host") ?? null;
      if (isAllowedHost(host, hosts)) return await next();
      return json({
        detail: `Host ${JSON.stringify(host)} is not allowed (DNS rebinding protection); use the address, localhost, ` +
          "or name it with --api-allowed-hosts.",
      }, 403);
    });
  }

  app.get("/api/config", () => json(provider.config()));
  app.get("/api/run", () => {
    // Once the exports are written, the export's own block (it adds what the server said it is): the same keys.
    const exported = provider.results().results?.run_info;
    const isObject = exported !== null && typeof exported === "object" && !Array.isArray(exported);
    return json(isObject ? exported : provider.runInfo());
  });
  app.get("/api/metrics", () => {
    const id = provider.identity;
    const metrics: Record<string, JsonObject> = {};
    for (const m of provider.liveMetrics()) {
      metrics[m.tag] = { header: m.header, unit: m.unit, avg: m.avg, sum: m.sum, count: m.count, value: m.value };
    }
    return json({
      infermeter_version: id.version,
      benchmark_id: id.benchmarkId,
      model: id.model,
      endpoint_type: id.endpointType,
      streaming: id.streaming,
      concurrency: id.concurrency,
      request_rate: id.requestRate,
      metrics,
    });
  });
  app.get(
    "/metrics",
    () =>
      new Response(renderLivePrometheus(provider.identity, provider.phases(), provider.liveMetrics()), {
        headers: PROMETHEUS_HEADERS,
      }),
  );
  app.get("/api/progress", () => {
    const phases: Record<string, JsonObject> = {};
    const now = Date.now();
    for (const p of provider.phases()) phases[p.name] = phaseStats(p, now);
    return json({ phases, results_exported: provider.resultsReady(), system_state: provider.state() });
  });
  app.get("/api/workers", () => {
    const workers: Record<string, JsonObject> = {};
    let completed = 0;
    let failed = 0;
    for (const w of provider.workers()) {
      workers[w.workerId] = {
        worker_id: w.workerId,
        task_stats: { total: w.completed, completed: w.completed - w.errors, failed: w.errors },
        status: w.status,
      };
      completed += w.completed - w.errors;
      failed += w.errors;
    }
    const list = provider.workers();
    return json({
      workers,
      worker_groups: {
        local: {
          group_id: "local",
          status: list.some((w) => w.status === "running") ? "running" : list.length > 0 ? list[0].status : "idle",
          declared_workers: list.length,
          ready_workers: list.length,
          task_stats: { total: completed + failed, completed, failed },
          workers,
        },
      },
    });
  });
  app.get("/api/results", () => json(provider.results()));
  app.get("/api/results/list", async () => {
    const ready = provider.resultsReady();
    const files = ready ? await listServedFiles(provider.artifactDir) : [];
    const state = provider.state();
    return json({
      files,
      ready,
      processing: !ready && state !== "running" && state !== "starting",
      partial: false,
      failed_exporters: [],
    });
  });
  app.get(`${FILES_PREFIX}*`, async (c) => {
    // The raw path, not Hono's decoded parameter: decoding happens once, in resolveServedFile, before any check.
    const raw = new URL(c.req.url).pathname.slice(FILES_PREFIX.length);
    const resolved = await resolveServedFile(provider.artifactDir, raw);
    if (!resolved.ok) return json({ detail: resolved.message }, resolved.status);
    if (!provider.resultsReady()) {
      return json({ detail: "Results are not ready yet; the run is still writing them." }, 404);
    }
    const file = await Deno.open(resolved.path, { read: true });
    return new Response(file.readable, {
      headers: {
        "content-type": contentType(resolved.name),
        "content-disposition": `attachment; filename="${resolved.name.replace(/["\\\r\n]/g, "_")}"`,
        "x-filename": resolved.name.replace(/[\r\n]/g, "_"),
      },
    });
  });
  app.get("/healthz", () => provider.state() === "failed" ? text("unhealthy", 503) : text("ok"));
  // Ready only while the benchmark runs, as AIPerf's; afterwards the body says how it ended.
  app.get("/readyz", () => {
    const state = provider.state();
    return state === "running" ? text("ok") : text(`not ready: ${state}`, 503);
  });
  app.get("/openapi.json", () => json(doc));
  app.get("/docs", () => new Response(renderDocsPage(doc, "docs"), { headers: HTML_HEADERS }));
  app.get("/redoc", () => new Response(renderDocsPage(doc, "redoc"), { headers: HTML_HEADERS }));
  return app;
}

/** A phase in AIPerf's `CombinedPhaseStats` shape (the fields we know). */
function phaseStats(p: ApiPhase, nowMs: number): JsonObject {
  const elapsedSec = ((p.endedAtMs ?? nowMs) - p.startedAtMs) / 1000;
  const rate = elapsedSec > 0 ? p.completed / elapsedSec : undefined;
  let eta: number | undefined;
  let percent: number | undefined;
  if (p.expected !== undefined && p.expected > 0) {
    percent = Math.min(100, (100 * p.completed) / p.expected);
    if (rate !== undefined && rate > 0) eta = Math.max(0, (p.expected - p.completed) / rate);
  } else if (p.durationSec !== undefined && p.durationSec > 0) {
    percent = Math.min(100, (100 * elapsedSec) / p.durationSec);
    eta = Math.max(0, p.durationSec - elapsedSec);
  }
  if (p.endedAtMs !== undefined) eta = 0;
  return {
    phase: p.name,
    phase_name: p.name,
    start_ns: Math.round(p.startedAtMs * 1e6),
    requests_end_ns: p.endedAtMs === undefined ? undefined : Math.round(p.endedAtMs * 1e6),
    total_expected_requests: p.expected,
    expected_duration_sec: p.durationSec,
    requests_completed: p.completed,
    request_errors: p.errors,
    success_records: p.completed - p.errors,
    error_records: p.errors,
    requests_per_second: rate,
    requests_eta_sec: eta,
    percent_complete: percent,
  };
}

function contentType(name: string): string {
  if (name.endsWith(".json")) return "application/json";
  if (name.endsWith(".jsonl")) return "application/x-ndjson";
  if (name.endsWith(".csv")) return "text/csv; charset=utf-8";
  if (name.endsWith(".txt") || name.endsWith(".log")) return "text/plain; charset=utf-8";
  return "application/octet-stream";
}
