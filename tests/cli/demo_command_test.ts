import assert from "node:assert/strict";
import { DEMO_COMMAND, demoProfileArgs } from "../../src/cli/demo_command.ts";
import { parseProfileArgs } from "../../src/config/parse_profile_args.ts";
import { renderHelp } from "../../src/config/render_help.ts";
import { fakeIo } from "../config/_fake_io.ts";

Deno.test("the demo's settings are a valid profile run against the given server", async () => {
  const { config } = await parseProfileArgs(demoProfileArgs("127.0.0.1:9"), fakeIo());
  assert.deepEqual(config.modelNames, ["sim-model"]);
  assert.deepEqual(config.urls, ["http://127.0.0.1:9"]);
  assert.equal(config.streaming, true);
  assert.equal(config.concurrency, 4);
  assert.equal(config.requestCount, 40);
  assert.deepEqual(config.extraInputs, { ignore_eos: true });
});

Deno.test("demo --help shows the value the demo gives each option it sets, and profile's other defaults", () => {
  const flat = renderHelp(DEMO_COMMAND).replace(/\s+/g, " ");
  assert.match(flat, /^Usage: infermeter demo \[profile options\]/);
  assert.match(flat, /-m, --model-names, --model <names> .*\(default: sim-model in the demo;/);
  assert.match(flat, /--request-count, --num-requests <int> .*\(default: 40 in the demo\)/);
  assert.match(flat, /default: the simulated server's address in the demo/);
  assert.match(flat, /--streaming, --no-streaming .*\(default: on in the demo\)/);
  assert.match(flat, /default: 21600; env: INFERMETER_REQUEST_TIMEOUT_SECONDS/);
});
