/** `deno task infermeter` from the user's directory: relative paths are the user's, not the checkout's. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startSim, tempDir } from "./cli_harness.ts";

const CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));

Deno.test("deno task infermeter run from another directory reads and writes relative paths there", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--ttft", "1", "--itl", "0.1"]);
  await Deno.writeTextFile(join(tmp.path, "inputs.jsonl"), '{"text": "hello"}\n{"text": "world"}\n');
  const out = await new Deno.Command(Deno.execPath(), {
    // deno-fmt-ignore
    args: ["task", "--config", CONFIG, "infermeter", "profile", "--ui", "none", "-m", "m", "--url", sim.url,
      "--input-file", "inputs.jsonl", "--request-count", "2", "--artifact-dir", "out"],
    cwd: tmp.path,
    // As from a user's shell: a test run under `deno task test` would hand down its own INIT_CWD, which deno task
    // keeps when it is already set.
    clearEnv: true,
    env: Object.fromEntries(Object.entries(Deno.env.toObject()).filter(([k]) => k !== "INIT_CWD")),
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  const records = (await Deno.readTextFile(join(tmp.path, "out", "profile_export.jsonl"))).trim().split("\n");
  assert.equal(records.length, 2, "both lines of the user's inputs.jsonl were sent");
});
