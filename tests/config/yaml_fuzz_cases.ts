/**
 * Seeded fuzzing of the YAML config reader as `-f FILE` reaches it (`parseProfileArgs`): flat and AIPerf-layout
 * samples, mutated as text (bytes, lines) and as YAML (a value swapped for a nasty scalar, list, mapping, tag,
 * anchor and alias bombs, deep nesting, `${VAR}` references). Properties: each case ends within a time limit and
 * yields a config or a `ConfigError` whose problems are sentences naming the file (with line:column for syntax
 * errors) — never another error, never an engine message. Used by the suite (small budgets) and scripts/fuzz/.
 */
import { ConfigError } from "../../src/config/config_error.ts";
import { parseProfileArgs } from "../../src/config/parse_profile_args.ts";
import { fuzzInput, rng } from "../transport/fuzz_cases.ts";

const FILE = "fuzz.yaml";

export const YAML_SAMPLES: readonly string[] = [
  `model: Qwen/Qwen3-0.6B
endpoint_type: chat
streaming: true
url: localhost:8000
concurrency: 2
request_count: 12
isl: 64
osl: 16
extra_inputs: {temperature: 0.7}
header: ["X-A: 1"]
goodput: ["request_latency:250"]
`,
  `benchmark:
  model: Qwen/Qwen3-0.6B
  endpoint:
    url: http://localhost:8000
    type: chat
    path: /v1/chat/completions
    streaming: true
    timeout: 600
    headers: {X-Trace: "1"}
    extra: {ignore_eos: true}
  dataset:
    type: synthetic
    entries: 50
    prompts: {isl: {mean: 64, stddev: 8}, osl: 16}
  phases:
    - {name: warmup, requests: 5}
    - {name: profiling, type: poisson, rate: 30.0, duration: 2m, concurrency: 8, grace_period: 60}
  artifacts:
    dir: ./artifacts/my-test
    prefix: run1
  runtime: {ui: none, workers: 2}
  slos: {request_latency: 250}
random_seed: 7
`,
  `schema_version: "1.0"
benchmark:
  models: [a, b]
  endpoint: {urls: ["http://127.0.0.1:1", "http://127.0.0.1:2"], type: completions}
  dataset: {type: synthetic, entries: 3}
  phases: {type: concurrency, concurrency: 4, requests: 10}
`,
];

const NASTY_SCALARS: readonly string[] = [
  "0",
  "-1",
  "1e12",
  "1e400",
  ".nan",
  "-.inf",
  "~",
  "null",
  "''",
  '"\\u0000"',
  "yes",
  "0x1F",
  "0o17",
  "2m",
  "-5s",
  "[]",
  "{}",
  "[1, [2, [3]]]",
  "{a: {b: {c: 1}}}",
  "!!binary aGVsbG8=",
  "!!timestamp 2001-12-14",
  "!!js/function 'function(){}'",
  "!!set {a, b}",
  "!!omap [a: 1]",
  "&a [*a]",
  "*nowhere",
  "${UNSET_VAR}",
  "${HOME}",
  "${X:default}",
  "${}",
  '"${UNCLOSED"',
  "<<: {x: 1}",
  "? complex key\n  : value",
  "|\n  multi\n  line",
  "x".repeat(3000),
  "[" + "[".repeat(300) + "]".repeat(300) + "]",
  "{" + "a: {".repeat(150) + "}".repeat(150) + "}",
];

/** Nine levels of nine aliases each: 9^9 nodes if anything walked the tree as a tree. */
const ALIAS_BOMB = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
  .concat(Array.from({ length: 9 }, (_, i) => `a${i + 1}: &a${i + 1} [${Array(9).fill(`*a${i}`).join(", ")}]`))
  .join("\n");

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)];
}

/** A config file text: a sample with values swapped (YAML-aware), lines shuffled or dropped, or bytes mutated. */
export function fuzzYamlText(r: () => number, maxLen: number): string {
  const sample = pick(r, YAML_SAMPLES);
  const mode = r();
  if (mode < 0.6) {
    const lines = sample.split("\n");
    const swaps = 1 + Math.floor(r() * 3);
    for (let s = 0; s < swaps; s++) {
      const at = Math.floor(r() * lines.length);
      const m = /^(\s*(?:- )?[\w.-]+:)(.*)$/.exec(lines[at]);
      if (m) lines[at] = `${m[1]} ${pick(r, NASTY_SCALARS)}`;
      else if (r() < 0.5) lines.splice(at, 1);
    }
    if (r() < 0.1) lines.push(`extra_inputs: *a9`, ALIAS_BOMB);
    if (r() < 0.1) lines.unshift(ALIAS_BOMB, `models: *a9`);
    return lines.join("\n");
  }
  if (mode < 0.7) return pick(r, NASTY_SCALARS);
  return new TextDecoder().decode(fuzzInput(r, [sample], maxLen));
}

const UNCLEAR = /Invalid array length|Maximum call stack|Cannot read propert|is not a function|\[object Object\]/;
const CASE_LIMIT_MS = 5000;

/** Parses `iterations` fuzzed config files. Throws naming the seed, case and text on a crash, an unclear or
 * unlocated problem, or a hang. */
export async function fuzzYamlConfig(seed: number, iterations: number, maxLen = 2048): Promise<number> {
  const r = rng(seed);
  let rejected = 0;
  for (let i = 0; i < iterations; i++) {
    const text = fuzzYamlText(r, maxLen);
    const where = () => `seed ${seed} case ${i} on ${JSON.stringify(text.slice(0, 1500))}`;
    const io = {
      env: { HOME: "/home/u", X: "3" },
      readTextFile: (path: string) => {
        if (path !== FILE) throw new Deno.errors.NotFound(path);
        return text;
      },
      isTty: false,
    };
    const started = performance.now();
    try {
      await parseProfileArgs(["-f", FILE], io);
    } catch (err) {
      if (!(err instanceof ConfigError)) {
        throw new Error(`${where()}: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`, {
          cause: err,
        });
      }
      for (const problem of err.problems) {
        if (problem.trim() === "" || UNCLEAR.test(problem)) throw new Error(`${where()}: unclear problem: ${problem}`);
        if (/invalid YAML/.test(problem) && !new RegExp(`^${FILE}(:\\d+:\\d+)?: invalid YAML`).test(problem)) {
          throw new Error(`${where()}: a syntax error without its position: ${problem}`);
        }
      }
      rejected++;
    }
    // Parsing is synchronous: a hang shows as a case far over the limit (a true infinite loop stops the run).
    const ms = performance.now() - started;
    if (ms > CASE_LIMIT_MS) throw new Error(`${where()}: took ${ms.toFixed(0)} ms`);
  }
  return rejected;
}
