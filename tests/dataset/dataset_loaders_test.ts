import assert from "node:assert/strict";
import { DATASET_LOADER_OPTIONS, DATASET_LOADERS, datasetLoaders } from "../../src/dataset/dataset_loaders.ts";

Deno.test("each format's reader starts from its declaration: the same name, help line, options and reads", async () => {
  const readers = await datasetLoaders();
  assert.equal(readers.length, DATASET_LOADERS.entries().length);
  for (const [i, declared] of DATASET_LOADERS.entries().entries()) {
    const reader = readers[i];
    assert.equal(reader.name, declared.name);
    assert.equal(reader.description, declared.description);
    assert.equal(reader.options, declared.options, `${declared.name}: the declaration's options`);
    assert.equal(reader.reads, declared.reads, `${declared.name}: the declaration's reads`);
    assert.equal(await declared.loader(), reader, `${declared.name}: one reader object`);
  }
});

Deno.test("the formats' own options are the declarations' options, in registry order", () => {
  assert.deepEqual(DATASET_LOADER_OPTIONS, DATASET_LOADERS.entries().flatMap((f) => f.options ?? []));
  assert.ok(DATASET_LOADER_OPTIONS.length > 5);
});
