import assert from "node:assert/strict";
import { join } from "node:path";
import { loadDataset } from "../../src/dataset/load_dataset.ts";
import { DATASET_LOADERS } from "../../src/dataset/dataset_loaders.ts";
import { isSpeedBenchRow, SPEED_BENCH_LOADERS } from "../../src/dataset/speed_bench_loader.ts";
import { DatasetError } from "../../src/dataset/dataset_error.ts";

const EXAMPLE = new URL("../../datasets/examples/speed_bench/qualitative.jsonl", import.meta.url).pathname;
const ID = "0123456789abcdef0123456789abcdef";

async function write(name: string, lines: readonly unknown[]): Promise<string> {
  const dir = await Deno.makeTempDir();
  const path = join(dir, name);
  await Deno.writeTextFile(path, lines.map((l) => typeof l === "string" ? l : JSON.stringify(l)).join("\n") + "\n");
  return path;
}

Deno.test("SPEED-Bench: the 32 types AIPerf 0.13 lists, each registered", () => {
  const names = SPEED_BENCH_LOADERS.map((l) => l.name);
  assert.equal(names.length, 32);
  assert.equal(new Set(names).size, 32);
  for (const n of ["speed_bench_qualitative", "speed_bench_writing", "speed_bench_throughput_32k"]) {
    assert.ok(names.includes(n), n);
  }
  assert.ok(names.includes("speed_bench_throughput_16k_high_entropy"));
  for (const name of names) assert.equal(DATASET_LOADERS.get(name).name, name);
});

Deno.test("SPEED-Bench: the qualitative file is detected by its name; each message is a turn with its role", async () => {
  const dataset = await loadDataset({ inputFile: EXAMPLE });
  assert.equal(dataset.format, "speed_bench_qualitative");
  assert.equal(dataset.conversations.length, 3);
  const [, math, review] = dataset.conversations;
  assert.equal(math.id, "b4e2d3c5f6a70819304b5c6d7e8f9012");
  assert.equal(math.turns.length, 2);
  // A leading system message stays a turn: the benchmark's prompt is sent as written.
  assert.deepEqual(review.turns.map((t) => t.role), ["system", "user"]);
  assert.equal(review.systemMessage, undefined);
});

Deno.test("SPEED-Bench: a category type keeps its category's rows; none left is an error naming the category", async () => {
  const coding = await loadDataset({ inputFile: EXAMPLE, customDatasetType: "speed_bench_coding" });
  assert.equal(coding.conversations.length, 2);
  assert.match(
    (await DATASET_LOADERS.get("speed_bench_coding").loader()).describe!(coding),
    /2 prompts \(3 turns\), category coding/,
  );
  await assert.rejects(
    loadDataset({ inputFile: EXAMPLE, customDatasetType: "speed_bench_roleplay" }),
    /qualitative\.jsonl: has no rows of category "roleplay" \(3 rows read\)/,
  );
});

Deno.test("SPEED-Bench: a file of another name is not claimed; a throughput split by its own name is", async () => {
  const row = { question_id: ID, category: "mixed", messages: [{ role: "user", content: "x" }] };
  const other = await write("rows.jsonl", [row]);
  await assert.rejects(loadDataset({ inputFile: other }), /matches no dataset format/);
  const split = await write("throughput_8k.jsonl", [row]);
  assert.equal((await loadDataset({ inputFile: split })).format, "speed_bench_throughput_8k");
  const tier = await loadDataset({ inputFile: split, customDatasetType: "speed_bench_throughput_8k_mixed" });
  assert.equal(tier.conversations.length, 1);
});

Deno.test("SPEED-Bench: malformed rows and the Hugging Face placeholder are refused with file:line", async () => {
  const good = { question_id: ID, category: "qa", messages: [{ role: "user", content: "x" }] };
  const cases: [unknown, RegExp][] = [
    [{ ...good, question_id: "short" }, /:2: "question_id" must be a 32-character string/],
    [{ ...good, messages: [] }, /:2: "messages" must be a non-empty list/],
    [{ ...good, messages: [{ role: "user", content: " " }] }, /:2: "messages"\[0\] needs a non-empty "content"/],
    [{
      ...good,
      messages: [{
        role: "user",
        content: "FULL BENCHMARK DATA SHOULD BE FETCHED FROM THE SOURCE USING SPECDEC_BENCH",
      }],
    }, /:2: "messages"\[0\] is the placeholder.*specdec_bench/],
  ];
  for (const [bad, message] of cases) {
    const path = await write("qualitative.jsonl", [good, bad]);
    const error = await loadDataset({ inputFile: path, customDatasetType: "speed_bench_qualitative" }).then(
      () => undefined,
      (e) => e,
    );
    assert.ok(error instanceof DatasetError, String(error));
    assert.match(error.message, message);
  }
  assert.equal(isSpeedBenchRow(good), true);
});
