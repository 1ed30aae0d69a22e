import assert from "node:assert/strict";
import { replayProfileArgs } from "../../src/cli/replay_args.ts";
import { ConfigError } from "../../src/config/config_error.ts";
import { parseProfileArgs } from "../../src/config/parse_profile_args.ts";
import { runInfo } from "../dataset/run_bundle_fixture.ts";

const IO = { env: {}, readTextFile: () => "", isTty: false };

Deno.test("replay args give the original endpoint, models, seed, count and concurrency, and parse as a profile", async () => {
  const run = runInfo({
    loop: "closed",
    concurrency: 4,
    requests: 12,
    sessions: 5,
    headers: [["X-Tenant", "a"]],
    custom_endpoint: "/v2/chat",
    tokenizer: "/models/qwen",
  });
  const { args, notices } = replayProfileArgs("b.bundle.tar.gz", run, [
    "--url",
    "127.0.0.1:8001",
    "--time-scale",
    "0.5",
  ]);
  assert.deepEqual(notices, []);
  const parsed = await parseProfileArgs(args, IO);
  const c = parsed.config;
  assert.equal(c.inputFile, "b.bundle.tar.gz");
  assert.equal(c.customDatasetType, "run_bundle");
  assert.deepEqual(c.urls, ["http://127.0.0.1:8001"], "the user's URL replaces the original's");
  assert.equal(c.endpointType, "chat");
  assert.equal(c.streaming, true);
  assert.equal(c.customEndpoint, "/v2/chat");
  assert.deepEqual(c.modelNames, ["m"]);
  assert.equal(c.requestCount, undefined);
  assert.equal(c.conversationNum, 5, "a closed loop runs each session once");
  assert.equal(c.concurrency, 4);
  assert.equal(c.randomSeed, 7);
  assert.equal(c.tokenizer, "/models/qwen");
  assert.equal(c.replayTimeScale, 0.5);
  assert.deepEqual(c.headers, [["X-Tenant", "a"]]);
  assert.equal(c.artifactDir, "artifacts/m-chat-concurrency2-replay");
});

Deno.test("replay args let the user's concurrency, artifact dir and headers win", async () => {
  const run = runInfo({ concurrency: 4, headers: [["X-Tenant", "a"]] });
  const { args } = replayProfileArgs("b.bundle.tar.gz", run, [
    "--concurrency",
    "8",
    "--artifact-dir",
    "out",
    "-H",
    "X-Tenant:b",
  ]);
  const c = (await parseProfileArgs(args, IO)).config;
  assert.equal(c.concurrency, 8);
  assert.equal(c.artifactDir, "out");
  assert.deepEqual(c.headers, [["X-Tenant", "b"]]);
});

Deno.test("replay args refuse options that would change what is sent or when, naming each", () => {
  assert.throws(
    () =>
      replayProfileArgs("b", runInfo(), ["--isl", "100", "--request-rate", "5", "--streaming", "--input-file", "x"]),
    (err: Error) => {
      assert.ok(err instanceof ConfigError);
      for (const flag of ["--isl", "--request-rate", "--streaming", "--input-file"]) {
        assert.match(err.message, new RegExp(`${flag}: a replay sends the bundle's requests on its schedule`));
      }
      return true;
    },
  );
  assert.throws(
    () => replayProfileArgs("b", runInfo(), ["--benchmark-duration", "5"]),
    /--benchmark-duration: a replay/,
  );
});

Deno.test("replay args say which secrets the original run sent and the bundle did not keep", () => {
  const run = runInfo({ api_key: true, secret_headers: ["Authorization", "X-Api-Token"] });
  const { notices } = replayProfileArgs("b", run, ["-H", "authorization: Bearer x"]);
  assert.deepEqual(notices, [
    "The original run sent an API key, which the bundle does not keep: give it again with --api-key.",
    "The original run sent X-Api-Token, whose value the bundle does not keep: give it again with -H.",
  ]);
  assert.deepEqual(
    replayProfileArgs("b", run, ["--api-key", "k", "-H", "X-Api-Token:t", "-H", "Authorization:a"]).notices,
    [],
  );
});
