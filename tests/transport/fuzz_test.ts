import { fuzzResponseParser, fuzzSseFramer } from "./fuzz_cases.ts";

// Seeded and bounded: the same cases every run (a failure names its seed and case). Longer runs with fresh
// seeds: scripts/fuzz/transport_fuzz.ts.
Deno.test("fuzz: the HTTP response parser never crashes and never depends on how bytes are split", () => {
  for (const seed of [1, 2, 3]) fuzzResponseParser(seed, 700);
});

Deno.test("fuzz: the SSE framer never crashes and never depends on how bytes are split", () => {
  for (const seed of [1, 2, 3]) fuzzSseFramer(seed, 700);
});
