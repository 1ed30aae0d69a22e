import assert from "node:assert/strict";
import { type BoxColumn, renderBoxTable } from "../../src/export/box_table.ts";

const width = (line: string) => [...line].length;
const widest = (text: string) => Math.max(...text.split("\n").map(width));

const STATS: BoxColumn[] = [
  { header: "Metric", wrap: true },
  { header: "avg" },
  { header: "min", dropOrder: 2 },
  { header: "max", dropOrder: 3 },
  { header: "p99", dropOrder: 6 },
  { header: "p50", dropOrder: 5 },
  { header: "std", dropOrder: 1 },
];
const ROW = [
  "Output Token Throughput Per User (tokens/sec/user)",
  "1,234.56",
  "2.00",
  "9,999.99",
  "8,888.88",
  "7.00",
  "123.45",
];

Deno.test("renderBoxTable: a table that fits is drawn whole, with no note", () => {
  const text = renderBoxTable(STATS, [ROW], { maxWidth: 200 });
  // Each column as wide as its widest cell, one space either side, a border between and around.
  assert.equal(widest(text), ROW.reduce((sum, cell) => sum + width(cell) + 3, 1));
  assert.match(text, /┃\s+std ┃$/m);
  assert.doesNotMatch(text, /left out/);
  // Exactly the rows it had: header, rule, one body line, borders.
  assert.equal(text.split("\n").length, 5);
});

Deno.test("renderBoxTable: too narrow, labels wrap, then columns leave in their drop order, named under the table", () => {
  const text = renderBoxTable(STATS, [ROW], { maxWidth: 60, title: "infermeter | LLM Metrics" });
  assert.ok(widest(text) <= 60, text);
  const header = text.split("\n").find((l) => l.startsWith("┃"))!;
  assert.deepEqual(header.split("┃").map((c) => c.trim()).filter((c) => c !== ""), ["Metric", "avg", "p99", "p50"]);
  assert.match(text, /^\(min, max, std left out to fit 60 columns\)$/m);
  // Nothing overflows, ever: with no column to drop, words break.
  const plain = STATS.map(({ header, wrap }) => ({ header, wrap }));
  const tight = renderBoxTable(plain, [ROW], { maxWidth: 40, title: "a long title that is wider than the table" });
  assert.ok(widest(tight) <= 40, tight);
  assert.doesNotMatch(tight, /left out/);
});
