/**
 * Longer fuzzing of the HTTP response parser and the SSE framer than the suite's (tests/transport/fuzz_test.ts):
 * fresh seeds for `--seconds`, larger inputs. A failure prints its seed and case; re-run with `--seed N`.
 *
 *   deno run -A scripts/fuzz/transport_fuzz.ts [--seconds 60] [--seed N] [--max-len 16384]
 */
import { fuzzResponseParser, fuzzSseFramer } from "../../tests/transport/fuzz_cases.ts";

function arg(name: string, fallback: string): string {
  const at = Deno.args.indexOf(`--${name}`);
  return at >= 0 && at + 1 < Deno.args.length ? Deno.args[at + 1] : fallback;
}

const seconds = Number(arg("seconds", "60"));
const maxLen = Number(arg("max-len", "16384"));
const fixed = Deno.args.includes("--seed") ? Number(arg("seed", "0")) : undefined;
const until = performance.now() + seconds * 1000;
let seed = fixed ?? (Date.now() % 1_000_000) * 1000;
let cases = 0;
do {
  fuzzResponseParser(seed, 200, maxLen);
  fuzzSseFramer(seed, 200, maxLen);
  cases += 400;
  seed++;
} while (fixed === undefined && performance.now() < until);
console.log(`ok: ${cases} cases, seeds up to ${seed - 1}, inputs up to ${maxLen} bytes`);
