import assert from "node:assert/strict";
import { UnknownFields } from "../../src/dataset/unknown_fields.ts";
import { DatasetError } from "../../src/dataset/dataset_error.ts";

Deno.test("UnknownFields says each unknown field once, with file:line and the closest known field", () => {
  const said: string[] = [];
  const fields = new UnknownFields("single_turn", ["text", "output_length"], { warn: (m) => said.push(m) });
  fields.check({ text: "a", output_lenght: 5 }, "in.jsonl", 3);
  fields.check({ text: "b", output_lenght: 6, colour: 1 }, "in.jsonl", 4);
  assert.deepEqual(said, [
    `in.jsonl:3: unknown field "output_lenght" is ignored: single_turn has no such field (did you mean ` +
    `'output_length'?); said once per field`,
    `in.jsonl:4: unknown field "colour" is ignored: single_turn has no such field; said once per field`,
  ]);
});

Deno.test("UnknownFields in strict mode refuses the first unknown field with file:line", () => {
  const fields = new UnknownFields("multi_turn turn", ["text"], { strict: true });
  fields.check({ text: "fine" }, "in.jsonl", 1);
  assert.throws(
    () => fields.check({ txet: "x" }, "in.jsonl", 2, `"turns"[1]`),
    (e: Error) =>
      e instanceof DatasetError && e.line === 2 &&
      e.message === `in.jsonl:2: unknown field "txet" in "turns"[1]: multi_turn turn has no such field (did you ` +
          `mean 'text'?); fix or remove it (--strict-dataset refuses unknown fields)`,
  );
});
