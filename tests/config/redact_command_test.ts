import assert from "node:assert/strict";
import { redactCommand } from "../../src/config/redact_command.ts";
import { parseProfileArgs } from "../../src/config/parse_profile_args.ts";
import { fakeIo } from "./_fake_io.ts";

Deno.test("redactCommand quotes values like AIPerf and hides the API key", () => {
  assert.equal(
    redactCommand([
      "--model",
      "my-model",
      "--url",
      "http://localhost:8000",
      "--api-key",
      "sk-secret-12345",
      "--request-count",
      "1000",
    ]),
    "infermeter profile --model 'my-model' --url 'http://localhost:8000' --api-key '<redacted>' --request-count 1000",
  );
});

Deno.test("redactCommand hides the API key in the --api-key=value form", () => {
  const line = redactCommand(["-m", "m", "--api-key=sk-secret-12345"]);
  assert.equal(line, "infermeter profile -m 'm' --api-key='<redacted>'");
});

Deno.test("redactCommand keeps credential header names and hides their values in both forms", () => {
  const line = redactCommand([
    "-H",
    "Authorization: Bearer tok-1",
    "--header=X-Api-Key:tok-2",
    "-HCookie: session=tok-3",
    "--header",
    '{"Proxy-Authorization":"Basic tok-4","X-Trace":"1"}',
    "-H",
    "X-Trace: visible",
  ]);
  assert.equal(
    line,
    "infermeter profile -H 'Authorization: <redacted>' --header='X-Api-Key:<redacted>' -H'Cookie: <redacted>' " +
      `--header '{"Proxy-Authorization":"<redacted>","X-Trace":"1"}' -H 'X-Trace: visible'`,
  );
  for (const secret of ["tok-1", "tok-2", "tok-3", "tok-4"]) assert.ok(!line.includes(secret), secret);
});

Deno.test("redactCommand hides URL userinfo and secret query parameters in both forms", () => {
  const line = redactCommand([
    "--url",
    "http://user:pw1@host:8000",
    "--url=https://u:pw2@h2,h3:1?api_key=pw3&x=1",
    "-u",
    "me:pw4@h4",
  ]);
  for (const secret of ["pw1", "pw2", "pw3", "pw4"]) assert.ok(!line.includes(secret), `${secret} in ${line}`);
  assert.match(line, /--url 'http:\/\/<redacted>@host:8000'/);
  assert.match(line, /--url='https:\/\/<redacted>@h2,h3:1\?api_key=<redacted>&x=1'/);
  assert.match(line, /-u '<redacted>@h4'/);
});

Deno.test("redactCommand hides secret-looking extra-input keys and leaves the rest", () => {
  const line = redactCommand([
    "--extra-inputs",
    "max_tokens:5",
    "--extra-inputs",
    "api_key:sk-1",
    "--extra-inputs=hf_token:hf-2",
    "--extra-inputs",
    '{"nvext":{"access_token":"t-3"},"ignore_eos":true}',
  ]);
  assert.equal(
    line,
    "infermeter profile --extra-inputs 'max_tokens:5' --extra-inputs 'api_key:<redacted>' " +
      `--extra-inputs='hf_token:<redacted>' --extra-inputs '{"nvext":{"access_token":"<redacted>"},"ignore_eos":true}'`,
  );
});

Deno.test("redactCommand hides values of unknown flags whose name looks secret", () => {
  assert.equal(
    redactCommand(["--hf-token", "hf_abc", "--client-secret=s1", "--other", "kept"]),
    "infermeter profile --hf-token '<redacted>' --client-secret='<redacted>' --other 'kept'",
  );
});

Deno.test("redactCommand escapes single quotes and keeps numbers bare", () => {
  assert.equal(
    redactCommand(["--goodput", "request_latency:250", "--random-seed", "-1", "--model", "it's"]),
    "infermeter profile --goodput 'request_latency:250' --random-seed -1 --model 'it'\\''s'",
  );
});

Deno.test("parseProfileArgs returns the redacted command line", async () => {
  const { redactedCommand } = await parseProfileArgs(
    ["-m", "m", "--api-key", "sk-xyz", "-H", "Authorization: Bearer abc", "-u", "a:b@h"],
    fakeIo(),
  );
  assert.equal(
    redactedCommand,
    "infermeter profile -m 'm' --api-key '<redacted>' -H 'Authorization: <redacted>' -u '<redacted>@h'",
  );
});

Deno.test("redactCommand hides --redact-header names and the value of an option whose value is optional", () => {
  assert.equal(
    redactCommand(
      ["-H", "X-Tenant: t1", "-H", "X-Trace: v", "--server-metrics", "http://h:1/metrics?token=t", "--streaming"],
      { secretHeaders: ["x-tenant"] },
    ),
    "infermeter profile -H 'X-Tenant: <redacted>' -H 'X-Trace: v' --server-metrics " +
      "'http://h:1/metrics?token=<redacted>' --streaming",
  );
  assert.equal(redactCommand(["--server-metrics", "--streaming"]), "infermeter profile --server-metrics --streaming");
});
