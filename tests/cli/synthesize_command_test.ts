import assert from "node:assert/strict";
import { runSynthesize } from "../../src/cli/synthesize.ts";
import { validateMooncakeTrace } from "../../src/cli/validate.ts";

async function run(args: string[]) {
  let stdout = "", stderr = "";
  const code = await runSynthesize(args, {
    stdout: (t) => stdout += t,
    stderr: (t) => stderr += t,
    now: () => new Date(Date.UTC(2026, 0, 2, 3, 4, 5)),
  });
  return { code, stdout, stderr };
}

Deno.test("synthesize agentic-code writes AIPerf's run directory, and its manifest replays the same dataset", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const first = await run(["agentic-code", "--num-sessions", "30", "--output", dir, "--max-isl", "80000"]);
    assert.equal(first.code, 0, first.stderr);
    const runDir = `${dir}/default_30s_seed42_20260102-030405`;
    assert.match(first.stdout, new RegExp(`Run directory: ${runDir}`));
    assert.match(first.stdout, /Validation: +Mooncake trace \(\d+ rows\)/);
    assert.match(first.stdout, /Agentic Code Session Profile: Target vs Synthesized Dataset/);
    const manifest = JSON.parse(await Deno.readTextFile(`${runDir}/manifest.json`));
    assert.equal(manifest.seed, 42);
    assert.equal(manifest.num_sessions, 30);
    assert.equal(manifest.config_name, "default");
    assert.equal(manifest.generation_params.max_prompt_tokens, 80000);
    const quality = JSON.parse(await Deno.readTextFile(`${runDir}/quality.json`));
    assert.equal(quality.session_end_stats.total_sessions, 30);
    assert.ok((await validateMooncakeTrace(`${runDir}/dataset.jsonl`)).errors.length === 0);
    assert.match(await Deno.readTextFile(`${runDir}/report.html`), /<h1>Agentic code dataset: default<\/h1>/);
    // From the manifest: the same distributions, so the same dataset for the same seed.
    const again = await run([
      "--target",
      "agentic-code",
      "--num-sessions",
      "30",
      "--output",
      `${dir}/b`,
      "--config",
      `${runDir}/manifest.json`,
    ]);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(
      await Deno.readTextFile(`${dir}/b/manifest_30s_seed42_20260102-030405/dataset.jsonl`),
      await Deno.readTextFile(`${runDir}/dataset.jsonl`),
    );
    // The bundled config by name.
    const bundled = await run(["agentic-code", "--num-sessions", "5", "--output", `${dir}/c`, "--config", "default"]);
    assert.equal(bundled.code, 0, bundled.stderr);
    const params = JSON.parse(await Deno.readTextFile(`${dir}/c/default_5s_seed42_20260102-030405/manifest.json`));
    assert.equal(params.generation_params.max_prompt_tokens, 167000);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("synthesize: an unknown workload, a bad config or a missing one exit 2 saying why", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const unknown = await run(["agentic-cod"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /'agentic-cod' is not a workload synthesize builds; did you mean 'agentic-code'/);
    assert.equal((await run([])).code, 2);
    await Deno.writeTextFile(`${dir}/bad.json`, JSON.stringify({ generation_length: { mean: 1, median: 5 } }));
    const bad = await run(["agentic-code", "--config", `${dir}/bad.json`, "--output", dir]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /bad\.json: generation_length\.mean \(1\) must be ≥ median \(5\)/);
    const missing = await run(["agentic-code", "--config", "nope", "--output", dir]);
    assert.match(missing.stderr, /--config 'nope' is neither a bundled config \(default\) nor a readable file/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
