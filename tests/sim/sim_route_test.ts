/**
 * The route contract carries APIs unlike OpenAI's: routes made up here (typed `event:` lifecycles, two paths with
 * streaming decided by the path, a key in its own header, an answer without generation) run through the shared
 * machinery unchanged.
 */
import assert from "node:assert/strict";
import { Registry } from "../../src/base/registry.ts";
import { createSimApp } from "../../src/sim/sim_app.ts";
import type { ReplyContext, RouteRequest, SimRoute, StreamFraming } from "../../src/sim/sim_route.ts";
import { SimStats } from "../../src/sim/sim_stats.ts";
import { oracleTokenizer } from "./oracle_tokenizer.ts";

interface ToyBody {
  readonly input: string;
  readonly max?: number;
}

/** Anthropic-like framing: named events, a block per phase, the whole text again at the end. */
class ToyFraming implements StreamFraming {
  #phase: "reasoning" | "content" | undefined;
  #text = "";
  constructor(private readonly reply: ReplyContext) {}
  open(): string {
    return `event: start\ndata: {"id":"${this.reply.id}"}\n\n`;
  }
  chunk(text: string, reasoning: boolean, sent: number): string {
    const phase = reasoning ? "reasoning" : "content";
    let out = "";
    if (phase !== this.#phase) {
      if (this.#phase !== undefined) out += `event: block_stop\ndata: {}\n\n`;
      out += `event: block_start\ndata: {"kind":"${phase}"}\n\n`;
      this.#phase = phase;
    }
    if (!reasoning) this.#text += text;
    return out + `event: delta\ndata: {"text":"${text}","sent":${sent}}\n\n`;
  }
  close(sent: number, reasoningSent: number): string {
    return `event: block_stop\ndata: {}\n\nevent: done\ndata: {"text":"${this.#text}","tokens":${sent},` +
      `"reasoning":${reasoningSent}}\n\n`;
  }
}

const TOY_ROUTE: SimRoute = {
  name: "toy",
  description: "A made-up API with typed events.",
  paths: ["/toy/generate", "/toy/generate_stream"],
  idPrefix: "toy_",
  parse(body: unknown, path: string): RouteRequest {
    const b = body as ToyBody;
    return {
      generation: {
        model: undefined,
        stream: path.endsWith("_stream"),
        maxTokens: b.max,
        minTokens: 0,
        ignoreEos: false,
        promptTexts: [b.input],
        promptTokenIds: 0,
        reasoning: { effort: undefined, disabled: false },
      },
      body: (reply, _reasoning, content) => JSON.stringify({ id: reply.id, text: content }),
      stream: (reply) => new ToyFraming(reply),
    };
  },
  credential: (headers) => headers.get("x-api-key") ?? undefined,
};

const VECTORS_ROUTE: SimRoute = {
  name: "vectors",
  description: "A made-up embeddings API: answers without generating.",
  paths: ["/vectors"],
  idPrefix: "vec-",
  parse(body: unknown): RouteRequest {
    const input = (body as ToyBody).input;
    return {
      generation: {
        model: undefined,
        stream: false,
        maxTokens: 0,
        minTokens: 0,
        ignoreEos: false,
        promptTexts: [input],
        promptTokenIds: 0,
        reasoning: undefined,
      },
      body: (reply) => JSON.stringify({ data: [[0.5, 0.25]], usage: { prompt_tokens: reply.plan.promptTokens } }),
      stream: () => {
        throw new Error("never streamed");
      },
    };
  },
};

function toyApp(options: { apiKey?: string; ttftMs?: number } = {}) {
  const stats = new SimStats();
  const app = createSimApp(
    { seed: 2, ttftMs: 0, itlMs: 0, reasoningTokens: 2, ...options },
    { tokenizer: oracleTokenizer(), stats, routes: new Registry("simulator route", [TOY_ROUTE, VECTORS_ROUTE]) },
  );
  return { app, stats };
}

function post(app: ReturnType<typeof toyApp>["app"], path: string, body: unknown, headers: HeadersInit = {}) {
  return app.request(path, { method: "POST", body: JSON.stringify(body), headers });
}

/** [event name, parsed data] of each event of an SSE body. */
function events(body: string): [string, Record<string, unknown>][] {
  return body.split("\n\n").filter((e) => e.length > 0).map((e) => {
    const [eventLine, dataLine] = e.split("\n");
    assert.match(eventLine, /^event: /);
    assert.match(dataLine, /^data: /);
    return [eventLine.slice(7), JSON.parse(dataLine.slice(6))];
  });
}

Deno.test("sim route with its own framing streams named events: opened once, a block per phase, closed", async () => {
  const { app, stats } = toyApp();
  const res = await post(app, "/toy/generate_stream", { input: "tell me", max: 5 });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
  const list = events(await res.text());
  assert.deepEqual(list.map(([name]) => name), [
    "start",
    "block_start",
    "delta",
    "delta",
    "block_stop",
    "block_start",
    "delta",
    "delta",
    "delta",
    "block_stop",
    "done",
  ]);
  assert.match(list[0][1].id as string, /^toy_[0-9a-f]{16}$/);
  const done = list.at(-1)![1];
  assert.deepEqual([done.tokens, done.reasoning], [5, 2]);
  const content = list.slice(5).filter(([n]) => n === "delta").map(([, d]) => d.text).join("");
  assert.equal(done.text, content);
  assert.equal(oracleTokenizer().count(content), 3);
  assert.equal(stats.requests("/toy/generate_stream", 200), 1);
  assert.equal(stats.outputTokensTotal, 5);
});

Deno.test("sim route decides from the path it was sent to whether to stream", async () => {
  const { app } = toyApp({ ttftMs: 1 });
  const res = await post(app, "/toy/generate", { input: "tell me", max: 4 });
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  const body = await res.json() as { id: string; text: string };
  assert.match(body.id, /^toy_/);
  assert.equal(oracleTokenizer().count(body.text), 2);
});

Deno.test("sim route reads the API key from the header its API uses", async () => {
  const { app } = toyApp({ apiKey: "k1" });
  const refused = await post(app, "/toy/generate", { input: "x", max: 3 }, { authorization: "Bearer k1" });
  assert.equal(refused.status, 401);
  const error = (await refused.json() as { error: { message: string } }).error;
  assert.doesNotMatch(error.message, /Bearer/, "no hint at a header this API does not use");
  const ok = await post(app, "/toy/generate", { input: "x", max: 3 }, { "x-api-key": "k1" });
  assert.equal(ok.status, 200);
  await ok.body?.cancel();
  const vectors = await post(app, "/vectors", { input: "x" }, { authorization: "Bearer k1" });
  assert.equal(vectors.status, 200, "a route without its own credential takes the bearer token");
  await vectors.body?.cancel();
});

Deno.test("sim route that does not generate answers at once with its body and counts only the prompt", async () => {
  const { app, stats } = toyApp({ ttftMs: 5_000 });
  const res = await post(app, "/vectors", { input: "embed these few words" });
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), {
    data: [[0.5, 0.25]],
    usage: { prompt_tokens: oracleTokenizer().count("embed these few words") },
  });
  assert.equal(stats.outputTokensTotal, 0);
  assert.equal(stats.requests("/vectors", 200), 1);
});

Deno.test("sim app refuses two routes that claim the same path", () => {
  const clash: SimRoute = { ...VECTORS_ROUTE, name: "clash", paths: ["/toy/generate"] };
  assert.throws(
    () =>
      createSimApp({}, {
        tokenizer: oracleTokenizer(),
        routes: new Registry("simulator route", [TOY_ROUTE, clash]),
      }),
    /'toy' and 'clash' both claim \/toy\/generate/,
  );
});
