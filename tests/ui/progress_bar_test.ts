import assert from "node:assert/strict";
import { ProgressBar } from "../../src/ui/progress_bar.ts";

Deno.test("on a pipe the progress is one plain line every interval, with the figures it is given", () => {
  let now = 0;
  const lines: string[] = [];
  const bar = new ProgressBar({
    label: "Profiling",
    total: 100,
    isTty: false,
    write: (t) => lines.push(t),
    now: () => now,
    pipeIntervalMs: 10_000,
    stats: () => "12.50 req/s · 1,540 tok/s · 8 in flight · 0 errors",
  });
  bar.refresh(); // the first line at once
  now = 4_000;
  bar.tick(40); // within the interval: nothing
  now = 10_000;
  bar.tick(10);
  now = 12_000;
  bar.finish();
  assert.deepEqual(lines, [
    "Profiling: 0/100 (0%) [00:00<?] 12.50 req/s · 1,540 tok/s · 8 in flight · 0 errors\n",
    "Profiling: 50/100 (50%) [00:10<00:10] 12.50 req/s · 1,540 tok/s · 8 in flight · 0 errors\n",
    "Profiling: 50/100 (50%) [00:12<00:12] 12.50 req/s · 1,540 tok/s · 8 in flight · 0 errors\n",
  ]);
  assert.ok(lines.every((l) => !l.includes("\x1b") && !l.includes("█")), "no escapes or bar on a pipe");
});

Deno.test("on a terminal the bar is redrawn in place with the figures after it", () => {
  let now = 0;
  let text = "";
  const bar = new ProgressBar({
    label: "Profiling",
    total: 4,
    isTty: true,
    write: (t) => text += t,
    now: () => now,
    width: 4,
    stats: () => "2.00 req/s",
  });
  now = 200;
  bar.tick(2);
  assert.equal(text, "\r\x1b[2KProfiling: 2/4 |██  | 50% [00:00<00:00] 2.00 req/s");
});
