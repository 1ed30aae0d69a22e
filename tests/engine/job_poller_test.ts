import assert from "node:assert/strict";
import { type JobSender, sendJob } from "../../src/engine/job_poller.ts";
import type { HttpExchange, HttpRequest, SendOptions } from "../../src/transport/http_exchange.ts";
import { VIDEO_GENERATION_ADAPTER } from "../../src/endpoints/openai/video_generation.ts";

const job = VIDEO_GENERATION_ADAPTER.job!;
const ROUTE = { session: 0, turn: 0, lastTurn: true };

/** A sender answering from a script: each request gets the next answer, recorded with its method and path. */
function scripted(answers: readonly Partial<HttpExchange>[]): JobSender<unknown> & { sent: HttpRequest[] } {
  const sent: HttpRequest[] = [];
  let t = 0;
  return {
    sent,
    send(req: HttpRequest, _opts?: SendOptions): Promise<HttpExchange> {
      const a = answers[sent.length];
      sent.push(req);
      t += 10;
      return Promise.resolve({
        reused: true,
        streamed: false,
        status: 200,
        bytesSent: 100,
        bytesReceived: 50,
        requestSent: t - 9,
        headersAt: t - 2,
        lastByteAt: t,
        ...a,
      });
    },
  };
}

const body = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));
const REQUEST: HttpRequest = {
  method: "POST",
  path: "/base/v1/videos",
  headers: [["X-Request-ID", "r1"]],
  body: body({}),
};
const noSleep = () => Promise.resolve();

Deno.test("a job is polled by id until completed: submission times, the completed answer's body and end, bytes summed", async () => {
  const sender = scripted([
    { body: body({ id: "video_1", status: "queued" }), connectStart: 1, connectEnd: 2, reused: false },
    { body: body({ id: "video_1", status: "in_progress", progress: 50 }) },
    { body: body({ id: "video_1", status: "completed", inference_time_s: 1.5 }) },
  ]);
  const slept: number[] = [];
  const ex = await sendJob(sender, REQUEST, {}, ROUTE, {
    job,
    pollIntervalMs: 100,
    sleep: (ms) => (slept.push(ms), Promise.resolve()),
  });
  assert.deepEqual(sender.sent.map((r) => `${r.method} ${r.path}`), [
    "POST /base/v1/videos",
    "GET /base/v1/videos/video_1",
    "GET /base/v1/videos/video_1",
  ]);
  assert.deepEqual(slept, [100, 100]);
  assert.equal(sender.sent[1].body, undefined);
  assert.deepEqual(sender.sent[1].headers, REQUEST.headers, "the polls carry the request's headers");
  assert.equal(ex.connectStart, 1);
  assert.equal(ex.reused, false);
  assert.equal(ex.requestSent, 1, "the submission's");
  assert.equal(ex.headersAt, 8, "the submission's acknowledgement");
  assert.equal(ex.lastByteAt, 30, "the completed answer's arrival");
  assert.equal(ex.bytesSent, 300);
  assert.equal(ex.bytesReceived, 150);
  assert.equal(JSON.parse(new TextDecoder().decode(ex.body)).status, "completed");
  assert.equal(
    VIDEO_GENERATION_ADAPTER.parseBody(JSON.parse(new TextDecoder().decode(ex.body))).video?.inferenceTimeS,
    1.5,
  );
});

Deno.test("a failed job ends the polling with the failed answer, which the adapter reports as an error", async () => {
  const sender = scripted([
    { body: body({ id: "v", status: "queued" }) },
    { body: body({ id: "v", status: "failed", error: { message: "out of memory" } }) },
  ]);
  const ex = await sendJob(sender, REQUEST, {}, ROUTE, { job, pollIntervalMs: 1, sleep: noSleep });
  assert.equal(sender.sent.length, 2);
  const delta = VIDEO_GENERATION_ADAPTER.parseBody(JSON.parse(new TextDecoder().decode(ex.body)));
  assert.deepEqual(delta.error, {
    message: "Video generation failed: out of memory",
    type: "VideoGenerationError",
    code: 500,
  });
});

Deno.test("a refused submission or poll is the outcome as it came; a submission without an id is not polled", async () => {
  const refused = scripted([{ status: 400, body: body({ error: { message: "bad prompt" } }) }]);
  const ex = await sendJob(refused, REQUEST, {}, ROUTE, { job, pollIntervalMs: 1, sleep: noSleep });
  assert.equal(ex.status, 400);
  assert.equal(refused.sent.length, 1);
  const lost = scripted([{ body: body({ id: "v", status: "queued" }) }, { status: 404, body: body({}) }]);
  assert.equal((await sendJob(lost, REQUEST, {}, ROUTE, { job, pollIntervalMs: 1, sleep: noSleep })).status, 404);
  const anonymous = scripted([{ body: body({ status: "queued" }) }]);
  const a = await sendJob(anonymous, REQUEST, {}, ROUTE, { job, pollIntervalMs: 1, sleep: noSleep });
  assert.equal(anonymous.sent.length, 1);
  assert.match(
    VIDEO_GENERATION_ADAPTER.parseBody(JSON.parse(new TextDecoder().decode(a.body))).error!.message,
    /still 'queued'/,
  );
});

Deno.test("a job still pending at the deadline times out; a cancelled one stops polling", async () => {
  const pending = Array.from({ length: 50 }, () => ({ body: body({ id: "v", status: "in_progress" }) }));
  const sender = scripted(pending);
  const deadline = performance.now() + 20;
  const ex = await sendJob(sender, REQUEST, { deadline }, ROUTE, {
    job,
    pollIntervalMs: 5,
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  });
  assert.equal(ex.error?.kind, "timeout");
  assert.ok(sender.sent.length < 50);
  const controller = new AbortController();
  const cancelled = scripted(pending);
  const c = await sendJob(cancelled, REQUEST, { signal: controller.signal }, ROUTE, {
    job,
    pollIntervalMs: 5,
    sleep: () => (controller.abort(), Promise.resolve()),
  });
  assert.equal(c.error?.kind, "cancelled");
  assert.equal(cancelled.sent.length, 1);
});

Deno.test("with content download, the finished job's content is fetched and its bytes counted", async () => {
  const sender = scripted([
    { body: body({ id: "v", status: "queued" }) },
    { body: body({ id: "v", status: "completed" }), lastByteAt: 25 },
    { body: new Uint8Array(5000), bytesReceived: 5000 },
  ]);
  const ex = await sendJob(sender, REQUEST, {}, ROUTE, {
    job,
    pollIntervalMs: 1,
    sleep: noSleep,
    downloadContent: true,
  });
  assert.equal(sender.sent[2].path, "/base/v1/videos/v/content");
  assert.equal(ex.bytesReceived, 50 + 50 + 5000);
  assert.equal(ex.lastByteAt, 25, "the request ends at the completed status, as in AIPerf");
  assert.equal(JSON.parse(new TextDecoder().decode(ex.body)).status, "completed");
});
