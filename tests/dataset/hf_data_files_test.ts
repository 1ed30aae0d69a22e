import assert from "node:assert/strict";
import { match, resolveDataFiles } from "../../src/dataset/hf_data_files.ts";
import { readHfRows } from "../../src/dataset/hf_rows.ts";
import { DatasetError } from "../../src/dataset/dataset_error.ts";
import { pythonFormat } from "../../src/dataset/python_format.ts";

async function repoWith(files: string[]): Promise<string> {
  const dir = await Deno.makeTempDir();
  for (const f of files) {
    await Deno.mkdir(`${dir}/${f}`.replace(/\/[^/]*$/, ""), { recursive: true });
    await Deno.writeTextFile(`${dir}/${f}`, "{}\n");
  }
  return dir;
}

Deno.test("without a card, the datasets library's default patterns find a split", async () => {
  const cases: [string[], string | undefined, string, string[] | string][] = [
    // Sharded data/ files win over everything else.
    [["data/train-00000-of-00002.parquet", "data/train-00001-of-00002.parquet", "test.jsonl"], undefined, "train", [
      "data/train-00000-of-00002.parquet",
      "data/train-00001-of-00002.parquet",
    ]],
    // A split keyword as a file name; synonyms count (val for validation).
    [["test.jsonl", "train.jsonl"], undefined, "test", ["test.jsonl"]],
    [["my_val.parquet", "my_train.parquet"], undefined, "validation", ["my_val.parquet"]],
    // The Hub's Parquet conversion: <subset>/<split>/NNNN.parquet.
    [["clean/test/0000.parquet", "clean/train/0000.parquet", "other/test/0000.parquet"], "clean", "test", [
      "clean/test/0000.parquet",
    ]],
    // No split in any name: every file is train.
    [["questions.jsonl"], undefined, "train", ["questions.jsonl"]],
    [["questions.jsonl"], undefined, "test", "has data files, but none for split 'test'"],
    [["README.txt"], undefined, "train", "holds no Parquet, JSON or JSON Lines file"],
  ];
  for (const [files, subset, split, expected] of cases) {
    const dir = await repoWith(files);
    try {
      const got = await resolveDataFiles(dir, subset, split);
      assert.deepEqual("files" in got ? got.files : got.missing, expected, files.join(" "));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
});

Deno.test("glob patterns: ** spans directories, * stays in one, [..] is a class", () => {
  const files = ["a/b/test-1.parquet", "test-2.parquet", "x/test.parquet", "data/test_x.json"];
  assert.deepEqual(match(files, ["**/test[-._ 0-9]*"]), [
    "a/b/test-1.parquet",
    "data/test_x.json",
    "test-2.parquet",
    "x/test.parquet",
  ]);
  assert.deepEqual(match(files, ["*.parquet"]), ["test-2.parquet"]);
  assert.deepEqual(match(files, ["data/**"]), ["data/test_x.json"]);
});

Deno.test("a malformed data file is an error naming it (and the line for JSON Lines)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/train.parquet`, "not parquet at all");
    await assert.rejects(async () => {
      for await (const _ of readHfRows([`${dir}/train.parquet`])) { /* drain */ }
    }, (e) => e instanceof DatasetError && /train\.parquet: is not a readable Parquet file/.test(e.message));
    await Deno.writeTextFile(`${dir}/train.jsonl`, '{"a": 1}\n{oops\n');
    await assert.rejects(async () => {
      for await (const _ of readHfRows([`${dir}/train.jsonl`])) { /* drain */ }
    }, /train\.jsonl:2: is not valid JSON/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("prompt templates follow Python's str.format for named fields", () => {
  assert.equal(pythonFormat("{a} and {{b}} {c}", { a: "x", c: 3 }, "w"), "x and {b} 3");
  assert.throws(() => pythonFormat("{missing}", { a: 1 }, "repo"), /repo: has no column 'missing' .*columns: a/);
});
