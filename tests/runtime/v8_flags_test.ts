import assert from "node:assert/strict";
import { V8_FLAGS, V8_FLAGS_ARG, YOUNG_GENERATION_MIB } from "../../src/runtime/v8_flags.ts";
import { clientCommand, selfCommand } from "../../src/runtime/self_command.ts";

const CONFIG = JSON.parse(Deno.readTextFileSync(new URL("../../deno.json", import.meta.url))) as {
  tasks: Record<string, string>;
};

// The semi-space a fresh isolate may fill before its first scavenge, MiB (V8 reports it as the new space's
// size plus what is still free in it).
const PROBE = `import { getHeapSpaceStatistics } from "node:v8";
const s = getHeapSpaceStatistics().find((x) => x.space_name === "new_space");
console.log(Math.round((s.space_size + s.space_available_size) / 1048576));`;

async function youngGenerationOf(flags: string[]): Promise<number> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", ...flags, PROBE],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return Number(new TextDecoder().decode(out.stdout).trim());
}

Deno.test("V8 flags: a process started with them has the 16 MiB young generation; without, V8's smaller default", async () => {
  assert.equal(await youngGenerationOf([V8_FLAGS_ARG]), YOUNG_GENERATION_MIB);
  assert.ok((await youngGenerationOf([])) < YOUNG_GENERATION_MIB);
});

// Objects that outlive a few scavenges, then die: ~60 MB of old-generation garbage (below the starting limit), as
// streams leave it.
const PROMOTER = `let junk;
const keep = [];
for (let round = 0; round < 100; round++) {
  const live = [];
  for (let j = 0; j < 12000; j++) live.push({ round, j, s: "v" + j });
  keep.push(live);
  for (let k = 0; k < 1.5e6; k++) junk = { k, k2: k };
  if (keep.length > 2) keep.shift();
}
console.log(junk.k);`;

async function markCompactsOf(flags: readonly string[]): Promise<number> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", `--v8-flags=${[...flags, "--trace-gc"].join(",")}`, PROMOTER],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).split("\n").filter((l) => l.includes("Mark-Compact")).length;
}

Deno.test("V8 flags: old-generation garbage below the starting limit brings no mark-compact; without it, some", async () => {
  assert.equal(await markCompactsOf(V8_FLAGS), 0);
  const youngOnly = V8_FLAGS.filter((f) => !f.startsWith("--initial-old-space-size"));
  assert.ok(await markCompactsOf(youngOnly) > 0);
});

Deno.test("V8 flags: load-generating children and the deno tasks start with them, servers without", () => {
  assert.deepEqual(V8_FLAGS_ARG, `--v8-flags=${V8_FLAGS.join(",")}`);
  // Under `deno test` the runtime is `deno`, so children are started with `deno run`.
  assert.ok(clientCommand.args.includes(V8_FLAGS_ARG), clientCommand.args.join(" "));
  assert.ok(!selfCommand.args.some((a) => a.startsWith("--v8-flags")), selfCommand.args.join(" "));
  assert.deepEqual(clientCommand.args.filter((a) => a !== V8_FLAGS_ARG), selfCommand.args);
  for (const task of ["demo", "infermeter"]) {
    assert.ok(CONFIG.tasks[task].split(/\s+/).includes(V8_FLAGS_ARG), `task ${task}: ${CONFIG.tasks[task]}`);
  }
});
