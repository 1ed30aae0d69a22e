import assert from "node:assert/strict";
import { executeRequest } from "../../src/engine/request_executor.ts";
import { IMAGE_EDIT_ADAPTER } from "../../src/endpoints/openai/image_edit.ts";
import { encodeRequestBody } from "../../src/endpoints/endpoint_adapter.ts";
import { sampleMedia } from "../../src/endpoints/sample_media.ts";
import type { HttpExchange, HttpRequest } from "../../src/transport/http_exchange.ts";

Deno.test("an upload's raw export shows the JSON body it encodes (files as base64 fields), never the form bytes", async () => {
  const payload = IMAGE_EDIT_ADAPTER.buildRequest({ texts: ["a fox"], media: [sampleMedia("image")] }, {
    model: "m",
    streaming: false,
    useLegacyMaxTokens: false,
    useServerTokenCount: false,
    extraInputs: {},
  }, []);
  const body = encodeRequestBody(IMAGE_EDIT_ADAPTER, payload);
  let sent: HttpRequest | undefined;
  const answer = new TextEncoder().encode('{"created":0,"data":[{"b64_json":"AAAA"}]}');
  const record = await executeRequest(
    {
      sender: {
        send(req) {
          sent = req;
          return Promise.resolve(
            {
              reused: false,
              streamed: false,
              status: 200,
              body: answer,
              bytesSent: 1,
              bytesReceived: 1,
              lastByteAt: performance.now(),
            } as HttpExchange,
          );
        },
      },
      adapter: IMAGE_EDIT_ADAPTER,
      path: "/v1/images/edits",
      headers: IMAGE_EDIT_ADAPTER.headers({ streaming: false }),
      timeoutMs: 1000,
      clockOffsetMs: 0,
      workerId: "w",
      phase: "profiling",
      keepRaw: true,
    },
    { conversationId: "c", turnIndex: 0, body, payload },
    { requestIndex: 0, sessionIndex: 0, turnIndex: 0, creditIssuedAt: 0 },
    "corr",
    new AbortController().signal,
  );
  assert.equal(record.error, undefined);
  assert.equal(sent?.body, body, "the form bytes go on the wire");
  const shown = JSON.parse(record.sentBody!);
  assert.equal(shown.image.content_type, "image/png");
  assert.equal(shown.prompt, "a fox");
});
