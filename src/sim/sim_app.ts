/**
 * The simulated inference server as a Hono app (testable with `app.request()`).
 *
 * Routes: the paths of every simulator route (`SIM_ROUTES`: one per endpoint type, e.g. `POST
 * /v1/chat/completions`, streaming and not), `GET /v1/models`, and the NIM and vLLM management routes of
 * `server_info_routes.ts` (health, readiness after `--load-delay`, `/metrics` and `/v1/metrics`, version, metadata,
 * manifest, license, `/tokenize`, `/detokenize`). With an API key, every inference route and every other `/v1/*`
 * route except the health checks and `/v1/metrics` needs the key (`Authorization: Bearer <key>`, or where the
 * route's API carries it).
 *
 * This file wires the shared flow — read the body, let the route parse it, refuse, plan, wait, answer — and knows
 * no API: each route's wire format lives in its module under `routes/`.
 *
 * Latency: a streamed response's token k is due `ttft + k·itl` ms after the request arrived (`TokenClock`) and is
 * written by the shared `StreamScheduler`; a non-streamed one is answered when its last token is due,
 * `ttft + itl·(n−1)`; one that generates nothing (embeddings, rankings, images) after `ttft`. With
 * `ttftMs = itlMs = 0` the whole body is built as one string and returned at once: no timers, no stream — the mode
 * the throughput benchmark measures.
 *
 * Errors and randomness: `errorRate` % of well-formed inference requests get a 500; of the others, `stallRate` %
 * wait `stallMs` before their answer starts and `disconnectRate` % lose their connection after the first part of
 * the answer (each counted in `sim_faults_total`; a request gets at most one fault). Every random choice of a
 * request (error, length, jitter, words, id) comes from a generator seeded by `RequestSeeder`, so a seeded
 * server gives the same answers whatever the arrival order.
 */
import { Hono } from "hono";
import type { Registry } from "../base/registry.ts";
import type { Tokenizer } from "../tokenizer/tokenizer.ts";
import type { GenerationRequest } from "./generation_request.ts";
import { answeredPlan, planGeneration, type UsageDetails } from "./plan_generation.ts";
import { PrefixCache } from "./prefix_cache.ts";
import type { RequestRecorder } from "./request_journal.ts";
import { RequestSeeder } from "./request_seeder.ts";
import { simErrorBody, SimRequestError } from "./sim_error.ts";
import { resolveSimOptions, type SimOptions, type SimServerTimingStyle } from "./sim_options.ts";
import type { ReplyContext, SimJob, SimRoute } from "./sim_route.ts";
import { formSummary, readForm } from "./form_body.ts";
import { SIM_ROUTES } from "./sim_route_registry.ts";
import { SimStats } from "./sim_stats.ts";
import { addServerInfoRoutes } from "./server_info_routes.ts";
import { SimSlots } from "./sim_slots.ts";
import { SseEmitter } from "./sse_emitter.ts";
import { type ScheduledHandle, StreamScheduler } from "./stream_scheduler.ts";
import { TokenClock } from "./token_clock.ts";
import { WordSource } from "./word_source.ts";
import { AnswerWords, type SimAnswers } from "./sim_answers.ts";
import { VllmMetrics } from "./vllm_metrics.ts";
import { DcgmMetrics } from "./dcgm_metrics.ts";
import { planSpecDecode } from "./spec_decode_plan.ts";
import { EmbeddingVectors } from "./embedding_vector.ts";

/** The routes whose answers carry vLLM's speculative-decoding statistics. */
const SPEC_DECODE_ROUTES: ReadonlySet<string> = new Set(["chat", "completions"]);

const PROMETHEUS_HEADERS = { "content-type": "text/plain; version=0.0.4; charset=utf-8" } as const;

export interface SimDeps {
  /** Counts prompt tokens (`prompt_tokens`); the CLI passes the builtin o200k_base tokenizer. */
  readonly tokenizer: Tokenizer;
  /** Live counters; pass one to read them from outside. @default new SimStats() */
  readonly stats?: SimStats;
  /** Timer for slow responses; pass one to abort its streams on shutdown. @default new StreamScheduler() */
  readonly scheduler?: StreamScheduler;
  /** The capacity: slots and their FIFO queue (shared with the server, which turns waiters away on shutdown).
   * @default new SimSlots(options.slots) */
  readonly slots?: SimSlots;
  /** The inference routes served. @default SIM_ROUTES */
  readonly routes?: Registry<SimRoute>;
  /** Told of every request as it arrives (`--record-requests`); undefined = nothing is recorded, at no cost.
   * @default undefined */
  readonly journal?: RequestRecorder;
  /** Known answers for known prompts (`--answers`); undefined = every answer is random words. @default undefined */
  readonly answers?: SimAnswers;
}

const JSON_HEADERS = { "content-type": "application/json" } as const;
const SSE_HEADERS = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" } as const;
/** Bound of the prompt-count memo; benchmarks often repeat prompts, and counting is the costliest step. */
const COUNT_CACHE_LIMIT = 4096;

export function createSimApp(options: Partial<SimOptions>, deps: SimDeps): Hono {
  const o = resolveSimOptions(options);
  const stats = deps.stats ?? new SimStats();
  const vectors = new EmbeddingVectors();
  const scheduler = deps.scheduler ?? new StreamScheduler();
  const tokenizer = deps.tokenizer;
  const routes = deps.routes ?? SIM_ROUTES;
  const routeOfPath = routesByPath(routes);
  const seeder = new RequestSeeder(o.seed ?? crypto.getRandomValues(new Uint32Array(1))[0]);
  const modelSet = new Set(o.models);
  const startedAt = Math.floor(Date.now() / 1000);
  const zeroLatency = o.ttftMs === 0 && o.itlMs === 0 && o.prefillMsPerToken === 0;
  const encoder = new TextEncoder();
  const countCache = new Map<string, number>();
  const slots = deps.slots ?? new SimSlots(o.slots);
  const vllm = new VllmMetrics(o.models[0], () => slots.waiting, o.specDecodeTokens > 0);
  const dcgm = o.dcgmGpus > 0 ? new DcgmMetrics(o.dcgmGpus, () => stats.inFlight) : undefined;

  const countText = (text: string): number => {
    const cached = countCache.get(text);
    if (cached !== undefined) return cached;
    const n = tokenizer.count(text);
    if (countCache.size >= COUNT_CACHE_LIMIT) countCache.clear();
    countCache.set(text, n);
    return n;
  };

  const prefixCache = new PrefixCache();
  const usageDetailsOf = (request: GenerationRequest): UsageDetails => ({
    cachedTokens: prefixCache.lookUp(request.promptTexts, request.promptTexts.map(countText)),
    predictionTokens: (request.predictionTexts ?? []).reduce((n, text) => n + countText(text), 0),
  });

  const promptTokensOf = (request: GenerationRequest): number => {
    let n = request.promptTokenIds;
    for (const text of request.promptTexts) n += countText(text);
    return n;
  };

  /** Waits on the shared scheduler (not a timer of its own); resolves early on shutdown. */
  const waitUntil = (due: number): Promise<void> =>
    new Promise((resolve) => {
      scheduler.add({
        run: () => {
          resolve();
          return undefined;
        },
        abort: resolve,
      }, due);
    });

  /** Jobs by id (`RouteRequest.job`), kept for the server's life: a benchmark's jobs are few and small. */
  const jobs = new Map<string, { job: SimJob; reply: ReplyContext; submittedAt: number; durationMs: number }>();

  const generate = async (
    req: BodySource,
    route: SimRoute,
    path: string,
    signal: () => AbortSignal,
    headers: Headers,
  ): Promise<Response> => {
    const arrival = performance.now();
    stats.begin();
    let streaming = false;
    let holding = false;
    const releaseSlot = () => {
      if (!holding) return;
      holding = false;
      slots.release();
    };
    try {
      let text: string;
      let json: unknown;
      if (route.bodyFormat === "form") {
        json = await readForm(new Uint8Array(await req.arrayBuffer()), headers.get("content-type"));
        text = JSON.stringify(formSummary(json as Awaited<ReturnType<typeof readForm>>));
      } else {
        text = await req.text();
        try {
          json = JSON.parse(text);
        } catch (e) {
          throw new SimRequestError(400, "invalid_request_error", `The request body is not valid JSON: ${message(e)}`);
        }
      }
      const call = route.parse(json, path, headers);
      const request = call.generation;
      if (o.strictModel && request.model !== undefined && !modelSet.has(request.model)) {
        throw new SimRequestError(
          404,
          "not_found_error",
          `The model '${request.model}' does not exist; this server serves ${o.models.join(", ")}.`,
          "model",
        );
      }
      const rng = seeder.rngFor(text);
      if (o.errorRate > 0 && rng.derive("error").next() * 100 < o.errorRate) {
        stats.count(path, 500);
        return new Response(
          simErrorBody(500, "server_error", "Simulated internal server error (--error-rate)."),
          { status: 500, headers: JSON_HEADERS },
        );
      }
      // At most one fault per request, so each shows on the client as exactly one kind of error.
      const stall = o.stallRate > 0 && rng.derive("stall").next() * 100 < o.stallRate;
      const cut = !stall && o.disconnectRate > 0 && rng.derive("disconnect").next() * 100 < o.disconnectRate;
      if (stall) {
        stats.fault("stall");
        await waitUntil(performance.now() + o.stallMs);
      }
      if (cut) stats.fault("disconnect");
      // Generation starts when a slot is free: the wait is queueing, part of what the client sees as TTFT.
      const wait = await slots.acquire(signal);
      if (wait !== "admitted") {
        const status = wait === "gone" ? 499 : 503;
        stats.count(path, status);
        return new Response(simErrorBody(status, "server_error", "The server is shutting down."), {
          status,
          headers: JSON_HEADERS,
        });
      }
      holding = true;
      const start = performance.now();
      const answer = (body: string | ReadableStream<Uint8Array>, headers: Record<string, string>) =>
        new Response(cut ? cutShort(body) : body, { status: 200, headers });
      const pieces = deps.answers?.piecesFor(request.promptTexts);
      const generated = planGeneration(request, promptTokensOf(request), o, rng.derive("length"));
      const planned = pieces === undefined ? generated : answeredPlan(generated, pieces.length, request.maxTokens);
      const detailed = o.usageDetails ? { ...planned, details: usageDetailsOf(request) } : planned;
      const plan = o.specDecodeTokens > 0 && SPEC_DECODE_ROUTES.has(route.name)
        ? {
          ...detailed,
          specDecode: planSpecDecode(
            planned.reasoningTokens + planned.contentTokens,
            o.specDecodeTokens,
            o.specDecodeAcceptance,
            rng.derive("spec_decode"),
          ),
        }
        : detailed;
      const ids = rng.derive("id");
      const reply: ReplyContext = {
        id: `${route.idPrefix}${hex8(ids.nextUint32())}${hex8(ids.nextUint32())}`,
        created: Math.floor(Date.now() / 1000),
        model: request.model ?? o.models[0],
        plan,
        emitSendTimes: o.emitSendTimes,
        embeddingDimensions: o.embeddingDimensions,
        vectors,
        llamaCppTimings: o.serverTiming === "llama.cpp" ? { arrival } : undefined,
      };
      const words = pieces === undefined
        ? new WordSource(rng.derive("words"))
        : new AnswerWords(rng.derive("words"), plan.reasoningTokens, pieces);
      const prefill = o.prefillMsPerToken * plan.promptTokens;
      const clock = new TokenClock(prefill > 0 ? { ...o, ttftMs: o.ttftMs + prefill } : o, rng.derive("latency"));
      stats.count(path, 200);
      stats.promptTokensTotal += plan.promptTokens;
      if (request.media !== undefined) stats.mediaInputs(request.media);
      const total = plan.reasoningTokens + plan.contentTokens;
      const held = plan.promptTokens + total;
      vllm.started(held);
      const done = (outputTokens: number, firstAt: number | undefined, finishReason: string) => {
        const end = performance.now();
        vllm.ended(held, {
          promptTokens: plan.promptTokens,
          outputTokens,
          ttftSec: ((firstAt ?? end) - arrival) / 1000,
          e2eSec: (end - arrival) / 1000,
          queueSec: (start - arrival) / 1000,
          finishReason,
          specDecode: plan.specDecode,
        });
      };
      const finishReason = plan.finishReason;

      if (call.job !== undefined) {
        // A job is answered at once; it runs on and is asked about with GET <path>/<id>.
        const durationMs = call.job.steps > 0 ? clock.advance(call.job.steps) : clock.next();
        jobs.set(reply.id, { job: call.job, reply, submittedAt: arrival, durationMs });
        done(0, undefined, finishReason);
        return answer(call.body(reply, "", ""), JSON_HEADERS);
      }

      if (!request.stream) {
        // An answer without tokens (embeddings, rankings, images) takes the time to first token.
        const lastDue = total > 0 ? clock.advance(total) : clock.next();
        if (lastDue > 0) await waitUntil(start + lastDue);
        const reasoning = words.take(plan.reasoningTokens);
        const content = words.take(plan.contentTokens);
        stats.outputTokensTotal += total;
        done(total, undefined, finishReason);
        return answer(call.body(reply, reasoning, content), timingHeaders(o.serverTiming, arrival));
      }

      const emitter = new SseEmitter({
        framing: call.stream(reply),
        plan,
        words,
        clock,
        tokensPerChunk: o.tokensPerChunk,
      });
      if (zeroLatency) {
        const body = emitter.emit(Infinity);
        stats.outputTokensTotal += emitter.tokensSent;
        done(emitter.tokensSent, undefined, finishReason);
        return answer(body, SSE_HEADERS);
      }
      streaming = true;
      return answer(
        timedStream(emitter, start, (firstAt, complete) => {
          releaseSlot();
          if (complete) done(emitter.tokensSent, firstAt, finishReason);
          else vllm.ended(held);
        }),
        SSE_HEADERS,
      );
    } catch (e) {
      if (e instanceof SimRequestError) {
        stats.count(path, e.status);
        return new Response(simErrorBody(e.status, e.type, e.message, e.param), {
          status: e.status,
          headers: JSON_HEADERS,
        });
      }
      throw e;
    } finally {
      // A timed stream leaves the in-flight gauge and its slot when its last event is written or the client goes away.
      if (!streaming) {
        stats.end();
        releaseSlot();
      }
    }
  };

  /** Half of the answer's first chunk, then the connection is dropped (never a complete answer, nor `[DONE]`). */
  const cutShort = (body: string | ReadableStream<Uint8Array>): ReadableStream<Uint8Array> => {
    const source = typeof body === "string" ? ReadableStream.from([encoder.encode(body)]) : body;
    let chunks = 0;
    const drop = () => new Error("simulated disconnect (--disconnect-rate)");
    return source.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          if (chunks++ === 0) controller.enqueue(chunk.subarray(0, Math.max(1, chunk.length >> 1)));
          else controller.error(drop());
        },
        flush(controller) {
          controller.error(drop());
        },
      }),
    );
  };

  const timedStream = (
    emitter: SseEmitter,
    start: number,
    onEnd: (firstAt: number | undefined, complete: boolean) => void,
  ): ReadableStream<Uint8Array> => {
    let handle: ScheduledHandle | undefined;
    let finished = false;
    let firstAt: number | undefined;
    const finish = () => {
      if (finished) return;
      finished = true;
      stats.end();
      stats.outputTokensTotal += emitter.tokensSent;
      onEnd(firstAt, emitter.done);
    };
    return new ReadableStream<Uint8Array>({
      start(controller) {
        handle = scheduler.add({
          run(horizon) {
            const text = emitter.emit(horizon - start);
            if (text.length > 0) {
              firstAt ??= performance.now();
              controller.enqueue(encoder.encode(text));
            }
            if (!emitter.done) return start + emitter.nextDue;
            controller.close();
            finish();
            return undefined;
          },
          abort() {
            try {
              controller.close();
            } catch {
              // Already closed or errored by the client going away: nothing left to cut short.
            }
            finish();
          },
        }, start + emitter.nextDue);
      },
      cancel() {
        handle?.cancel();
        finish();
      },
    });
  };

  const app = new Hono();

  const journal = deps.journal;
  if (journal !== undefined) {
    // First of all middleware, so refused and unknown requests are recorded too, stamped before any other work.
    app.use("*", async (c, next) => {
      const at = performance.timeOrigin + performance.now();
      // A form is journaled as its fields (files by name, type and size), and read as bytes so uploads stay intact.
      const form = /^multipart\/form-data/i.test(c.req.header("content-type") ?? "");
      const body = form
        ? c.req.arrayBuffer().then(async (b) =>
          JSON.stringify(formSummary(await readForm(new Uint8Array(b), c.req.header("content-type") ?? null)))
        ).catch(() => "(a malformed multipart/form-data body)")
        : c.req.text();
      journal.record(at, c.req.raw, body);
      await next();
    });
  }

  app.onError((err) => {
    return new Response(simErrorBody(500, "server_error", `Internal error: ${message(err)}`), {
      status: 500,
      headers: JSON_HEADERS,
    });
  });
  app.notFound((c) => {
    return new Response(
      simErrorBody(404, "not_found_error", `No route for ${c.req.method} ${new URL(c.req.url).pathname}.`),
      { status: 404, headers: JSON_HEADERS },
    );
  });

  // Health and metrics stay open even with an API key so orchestrators and scrapers need no secret; the other
  // management routes sit behind the key like any /v1 route.
  const management = new Hono();
  addServerInfoRoutes(management, o, {
    tokenizer,
    metricsText: () => stats.toPrometheus() + vllm.render(),
    startedAt: performance.now(),
  });
  if (dcgm !== undefined) {
    app.get("/dcgm/metrics", () => new Response(dcgm.render(), { status: 200, headers: PROMETHEUS_HEADERS }));
  }

  if (o.apiKey !== undefined) {
    const key = o.apiKey;
    app.use("*", async (c, next) => {
      const path = c.req.path;
      const route = routeOfPath.get(path);
      if (
        route === undefined && (!path.startsWith("/v1/") || path.startsWith("/v1/health/") || path === "/v1/metrics")
      ) {
        return await next();
      }
      const headers = c.req.raw.headers;
      const presented = route?.credential ? route.credential(headers) : bearerToken(headers);
      if (presented === key) return await next();
      const hint = route?.credential ? "" : "; send 'Authorization: Bearer <key>'";
      return new Response(
        simErrorBody(401, "authentication_error", `Missing or invalid API key${hint}.`),
        { status: 401, headers: JSON_HEADERS },
      );
    });
  }

  app.route("/", management);
  app.get("/v1/models", () =>
    jsonResponse({
      object: "list",
      data: o.models.map((id) => ({ id, object: "model", created: startedAt, owned_by: "infermeter-sim" })),
    }));
  // With a journal, the body is read through Hono's cache (the journal has started reading it); without one, straight
  // from the request, so the journal costs nothing when off.
  for (const [path, route] of routeOfPath) {
    app.post(
      path,
      journal
        ? (c) => generate(c.req, route, path, () => c.req.raw.signal, c.req.raw.headers)
        : (c) => generate(c.req.raw, route, path, () => c.req.raw.signal, c.req.raw.headers),
    );
    if (route.jobs) addJobRoutes(app, path);
  }
  return app;

  /** `GET <path>/<id>`: the job's status now; `GET <path>/<id>/content`: its content once done (404 before). */
  function addJobRoutes(app: Hono, path: string): void {
    const find = (id: string) => {
      const entry = jobs.get(id);
      if (entry === undefined) {
        throw new SimRequestError(404, "not_found_error", `No job '${id}'.`, "id");
      }
      return entry;
    };
    const refused = (e: unknown, where: string): Response => {
      if (!(e instanceof SimRequestError)) throw e;
      stats.count(where, e.status);
      return new Response(simErrorBody(e.status, e.type, e.message, e.param), {
        status: e.status,
        headers: JSON_HEADERS,
      });
    };
    app.get(`${path}/:id`, (c) => {
      try {
        const entry = find(c.req.param("id"));
        stats.count(`${path}/{id}`, 200);
        const elapsed = performance.now() - entry.submittedAt;
        return new Response(entry.job.status(entry.reply, elapsed, entry.durationMs), {
          status: 200,
          headers: JSON_HEADERS,
        });
      } catch (e) {
        return refused(e, `${path}/{id}`);
      }
    });
    app.get(`${path}/:id/content`, (c) => {
      try {
        const entry = find(c.req.param("id"));
        if (performance.now() - entry.submittedAt < entry.durationMs) {
          throw new SimRequestError(404, "not_found_error", `Job '${c.req.param("id")}' has not completed yet.`);
        }
        const { body, contentType } = entry.job.content();
        stats.count(`${path}/{id}/content`, 200);
        return new Response(body, { status: 200, headers: { "content-type": contentType } });
      } catch (e) {
        return refused(e, `${path}/{id}/content`);
      }
    });
  }
}

/** Where a handler reads the request body from. */
interface BodySource {
  text(): Promise<string>;
  arrayBuffer(): Promise<ArrayBuffer>;
}

/** Each route path to its route; two routes claiming one path is a registration mistake. */
function routesByPath(routes: Registry<SimRoute>): Map<string, SimRoute> {
  const byPath = new Map<string, SimRoute>();
  for (const route of routes.entries()) {
    for (const path of route.paths) {
      const other = byPath.get(path);
      if (other !== undefined) {
        throw new RangeError(`simulator routes '${other.name}' and '${route.name}' both claim ${path}`);
      }
      byPath.set(path, route);
    }
  }
  return byPath;
}

function bearerToken(headers: Headers): string | undefined {
  const value = headers.get("authorization");
  return value !== null && value.startsWith("Bearer ") ? value.slice(7) : undefined;
}

function jsonResponse(value: unknown): Response {
  return new Response(JSON.stringify(value), { status: 200, headers: JSON_HEADERS });
}

function hex8(n: number): string {
  return (n >>> 0).toString(16).padStart(8, "0");
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * A non-streamed answer's headers with the server's own timing, measured from the request's arrival: TGI's
 * (`x-queue-time` 0 — the simulator never queues —, `x-inference-time` and `x-total-time`, whole ms) or OpenAI's
 * `openai-processing-ms`.
 */
function timingHeaders(style: SimServerTimingStyle, arrival: number): Record<string, string> {
  if (style !== "tgi" && style !== "openai") return JSON_HEADERS;
  const elapsed = Math.round(performance.now() - arrival);
  return style === "tgi"
    ? {
      ...JSON_HEADERS,
      "x-queue-time": "0",
      "x-validation-time": "0",
      "x-inference-time": String(elapsed),
      "x-total-time": String(elapsed),
    }
    : { ...JSON_HEADERS, "openai-processing-ms": String(elapsed) };
}
