import assert from "node:assert/strict";
import { runConfig } from "../../src/cli/config.ts";
import { configTemplate, fileOptions, yamlKeyOf } from "../../src/config/config_template.ts";
import { loadYamlConfig } from "../../src/config/yaml_config.ts";
import { layerOptionValues } from "../../src/config/layer_option_values.ts";
import { OPTION_TABLE } from "../../src/config/option_table.ts";
import { helpGroups } from "../../src/config/render_help.ts";
import { PROFILE_COMMAND } from "../../src/config/option_table.ts";

function io(files: Record<string, string> = {}, env: Record<string, string> = {}) {
  const out = { stdout: "", stderr: "" };
  return {
    out,
    io: {
      stdout: (t: string) => void (out.stdout += t),
      stderr: (t: string) => void (out.stderr += t),
      env,
      readTextFile: (path: string) => {
        if (!(path in files)) throw new Deno.errors.NotFound(`no ${path}`);
        return files[path];
      },
    },
  };
}

Deno.test("config init lists every option a file can set, grouped in --help order, each line valid once uncommented", () => {
  const text = configTemplate();
  // A setting is the last line of its block (help comments above it may wrap onto a word and a colon too).
  const keys = [...text.matchAll(/^(?:# )?([a-z0-9_]+): .*$(?=\n\n|\n?(?![\s\S]))/gm)].map((m) => m[1]);
  assert.deepEqual(new Set(keys), new Set(fileOptions().map(yamlKeyOf)));
  const headings = [...text.matchAll(/^# ── (.+?) ─/gm)].map((m) => m[1]);
  assert.deepEqual(headings, helpGroups(PROFILE_COMMAND).filter((g) => headings.includes(g)));
  assert.ok(headings.length >= 10);
  // Uncommented, every key is known to the loader and every value parses for its option.
  const all = text.replace(/^# ([a-z0-9_]+: .*)$(?=\n\n|\n?(?![\s\S]))/gm, "$1");
  const loaded = loadYamlConfig(all, { path: "all.yaml" });
  assert.deepEqual(loaded.problems, []);
  assert.deepEqual(layerOptionValues(OPTION_TABLE, loaded.assignments).problems, []);
});

Deno.test("config validate reports every planted problem with its line number, and exits 2", async () => {
  const planted = [
    "model: m1", //                 1
    "concurrency: abc", //          2  not a number
    "endpoint_typ: chat", //        3  unknown key
    "streaming: maybe", //          4  not a boolean
    "benchmark:", //                5
    "  endpoint:", //               6
    "    timeout: -5", //           7  out of range
    "    bogus: 1", //              8  unknown key
    "output_tokens_mean: 10", //    9  fine
    "request_count: 0", //          10 out of range
  ].join("\n");
  const { io: cio, out } = io({ "bad.yaml": planted });
  assert.equal(await runConfig(["validate", "bad.yaml"], cio), 2);
  const lines = out.stderr.trim().split("\n").slice(1).map((l) => l.trim());
  assert.match(out.stderr, /^6 problems:/);
  assert.deepEqual(lines.map((l) => /^bad\.yaml:(\d+): /.exec(l)?.[1]), ["2", "3", "4", "7", "8", "10"]);
  assert.match(lines[1], /unknown key 'endpoint_typ'; did you mean 'endpoint_type'/);
  assert.equal(out.stdout, "");
});

Deno.test("config validate accepts a good file; a YAML syntax error names its line and column", async () => {
  const good = io({ "ok.yaml": "model: m\nconcurrency: 4\nurl: http://127.0.0.1:8000\n" });
  assert.equal(await runConfig(["validate", "ok.yaml"], good.io), 0);
  assert.equal(good.out.stdout, "ok.yaml: valid\n");
  const broken = io({ "b.yaml": "model: m\nconcurrency: [4\n" });
  assert.equal(await runConfig(["validate", "b.yaml"], broken.io), 2);
  assert.match(broken.out.stderr, /b\.yaml:\d+:\d+: invalid YAML/);
});

Deno.test("config expand resolves defaults, file, environment and flags, noting sources and redacting secrets", async () => {
  const { io: cio, out } = io(
    { "c.yaml": "model: m\nconcurrency: 8\napi_key: sk-file-secret\n" },
    { INFERMETER_URL: "http://user:pw@127.0.0.1:9000" },
  );
  const code = await runConfig(["expand", "-f", "c.yaml", "--concurrency", "16", "-H", "X-Api-Key: k-secret"], cio);
  assert.equal(code, 0, out.stderr);
  assert.match(out.stdout, /^model_names: \[m\] {2}# yaml$/m);
  assert.match(out.stdout, /^concurrency: 16 {2}# cli$/m);
  assert.match(out.stdout, /^url: \[.*<redacted>@127\.0\.0\.1:9000.*\] {2}# env$/m);
  assert.match(out.stdout, /^api_key: <redacted> {2}# yaml$/m);
  assert.match(out.stdout, /^streaming: false {2}# default$/m);
  for (const secret of ["sk-file-secret", "k-secret", "pw@"]) assert.ok(!out.stdout.includes(secret), secret);
});
