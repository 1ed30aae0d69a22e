/**
 * What the parity scripts share: a `serve-sim` of this checkout on a free loopback port (its request journal and its
 * own `/metrics`), AIPerf 0.13 and infermeter run as subprocesses with the same arguments, and the scenarios both
 * are run with. Every process is started here and stopped by its own handle, never by name.
 *
 * AIPerf comes from `pip install aiperf==0.13.0` (`--aiperf PATH`, `$AIPERF_BIN`, or `aiperf` on the PATH). The
 * simulator and both clients count tokens with one local `tokenizer.json` (the test fixture), so the server's
 * `usage` and both tools' counts are comparable token for token.
 */
import { join } from "node:path";

export const ROOT = new URL("../..", import.meta.url).pathname;
export const TOKENIZER = join(ROOT, "tests/fixtures/tiny_bpe");

export interface Sim {
  readonly url: string;
  readonly journal: string;
  /** Scrapes the simulator's own `/metrics` (the server-side truth). */
  metrics(): Promise<string>;
  stop(): Promise<void>;
}

/** Starts `serve-sim` (usage details on, prompt tokens counted with the fixture tokenizer) on a free port. */
export async function startSim(extra: readonly string[], journal: string): Promise<Sim> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      join(ROOT, "main.ts"),
      "serve-sim",
      "--port",
      "0",
      "--tokenizer",
      TOKENIZER,
      "--usage-details",
      "--record-requests",
      journal,
      ...extra,
    ],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("serve-sim exited before listening");
    text += value;
  }
  const url = /listening on (\S+)/.exec(text)?.[1];
  if (!url) throw new Error(`serve-sim said: ${text}`);
  return {
    url,
    journal,
    metrics: async () => await (await fetch(`${url}/metrics`)).text(),
    stop: async () => {
      child.kill("SIGTERM");
      reader.cancel().catch(() => {});
      await child.status;
    },
  };
}

export interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export async function run(
  cmd: string,
  args: readonly string[],
  cwd: string,
  env?: Record<string, string>,
): Promise<Run> {
  const out = await new Deno.Command(cmd, { args: [...args], cwd, env, stdout: "piped", stderr: "piped" }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

export function aiperfBin(args: readonly string[]): string {
  const i = args.indexOf("--aiperf");
  return (i >= 0 ? args[i + 1] : undefined) ?? Deno.env.get("AIPERF_BIN") ?? "aiperf";
}

/** Runs AIPerf 0.13 `profile` in `cwd` (its `$HOME` there too: it writes settings on first use). */
export function runAiperf(bin: string, args: readonly string[], cwd: string): Promise<Run> {
  return run(bin, ["profile", ...args], cwd, { ...Deno.env.toObject(), HOME: cwd, NO_COLOR: "1", COLUMNS: "200" });
}

/** Runs infermeter `profile` from this checkout in `cwd`, its console as AIPerf's (`--console aiperf`). */
export function runInfermeter(args: readonly string[], cwd: string): Promise<Run> {
  const console = args.includes("--console") ? [] : ["--console", "aiperf"];
  return run(Deno.execPath(), ["run", "-A", join(ROOT, "main.ts"), "profile", ...args, ...console], cwd, {
    ...Deno.env.toObject(),
    NO_COLOR: "1",
    COLUMNS: "200",
  });
}

export interface Scenario {
  readonly name: string;
  /** What it shows, one line. */
  readonly about: string;
  /** Extra `serve-sim` flags. */
  readonly sim: readonly string[];
  /** Files written into the run directory before the run: name → content. */
  readonly files?: Readonly<Record<string, string>>;
  /** `profile` arguments after `--url` (both tools). */
  readonly args: readonly string[];
}

/** Three conversations of three turns, each turn asking for 12 tokens (a multi_turn file). */
export const MULTI_TURN_FILE = ["harbour", "orchard", "lantern"].map((id) =>
  JSON.stringify({
    session_id: id,
    turns: [1, 2, 3].map((k) => ({
      text: `Turn ${k} about the ${id}: describe its colours, its sounds and the people around it in a few lines.`,
      output_length: 12,
    })),
  })
).join("\n") + "\n";

/** Thirty one-line entries (a single_turn file), for the default request count of a file dataset. */
export const SINGLE_TURN_FILE = Array.from(
  { length: 30 },
  (_, i) => JSON.stringify({ text: `Entry ${i}: name three rivers and one bridge over each.`, output_length: 8 }),
).join("\n") + "\n";

const COMMON = ["--model", "sim-model", "--tokenizer", TOKENIZER, "--random-seed", "7", "--ui-type", "none"];
const SYNTHETIC = [
  "--synthetic-input-tokens-mean",
  "60",
  "--synthetic-input-tokens-stddev",
  "0",
  "--output-tokens-mean",
  "16",
  "--output-tokens-stddev",
  "0",
  "--extra-inputs",
  "ignore_eos:true",
];

/** The scenarios, against a usage-reporting simulator (`--usage-details`). */
export const SCENARIOS: readonly Scenario[] = [
  {
    name: "multi_turn_usage",
    about: "multi-turn chat (3 × 3 turns) streaming, usage details, time slices of 0.5 s",
    sim: ["--ttft", "20", "--itl", "2"],
    files: { "conversations.jsonl": MULTI_TURN_FILE },
    args: [
      ...COMMON,
      "--endpoint-type",
      "chat",
      "--streaming",
      "--input-file",
      "conversations.jsonl",
      "--custom-dataset-type",
      "multi_turn",
      "--request-count",
      "9",
      "--concurrency",
      "3",
      "--slice-duration",
      "0.5",
    ],
  },
  {
    name: "server_token_count",
    about: "chat streaming with --use-server-token-count, usage details, reasoning tokens",
    sim: ["--ttft", "20", "--itl", "2", "--reasoning-tokens", "4"],
    args: [
      ...COMMON,
      ...SYNTHETIC,
      "--endpoint-type",
      "chat",
      "--streaming",
      "--use-server-token-count",
      "--request-count",
      "16",
      "--concurrency",
      "4",
    ],
  },
  {
    name: "errors",
    about: "chat streaming against a server failing 40 % of requests",
    sim: ["--ttft", "20", "--itl", "2", "--error-rate", "40", "--seed", "1"],
    args: [
      ...COMMON,
      ...SYNTHETIC,
      "--endpoint-type",
      "chat",
      "--streaming",
      "--request-count",
      "20",
      "--concurrency",
      "4",
    ],
  },
  {
    name: "file_default_count",
    about: "a 30-line single_turn file with no request count, duration or conversation number",
    sim: ["--ttft", "5", "--itl", "1"],
    files: { "prompts.jsonl": SINGLE_TURN_FILE },
    args: [
      ...COMMON,
      "--endpoint-type",
      "chat",
      "--streaming",
      "--input-file",
      "prompts.jsonl",
      "--custom-dataset-type",
      "single_turn",
      "--concurrency",
      "2",
    ],
  },
  {
    // Every draft accepted, so both tools' different prompts get the same statistics: 10 tokens = steps accepting
    // 3, 3 and 1 (the last cut to the answer).
    name: "spec_decode",
    about: "chat streaming against vLLM-style per-request speculative-decoding statistics (k = 3, all accepted)",
    sim: ["--ttft", "10", "--itl", "1", "--spec-decode-tokens", "3", "--spec-decode-acceptance", "1"],
    args: [
      ...COMMON,
      "--synthetic-input-tokens-mean",
      "60",
      "--synthetic-input-tokens-stddev",
      "0",
      "--output-tokens-mean",
      "10",
      "--output-tokens-stddev",
      "0",
      "--extra-inputs",
      "ignore_eos:true",
      "--endpoint-type",
      "chat",
      "--streaming",
      "--request-count",
      "8",
      "--concurrency",
      "2",
    ],
  },
];

/** The artifact directory a run wrote under `dir/artifacts`: the one holding `profile_export_aiperf.json`. */
export function artifactDir(dir: string): string {
  const base = join(dir, "artifacts");
  const found = [...Deno.readDirSync(base)].filter((e) => {
    try {
      return e.isDirectory && Deno.statSync(join(base, e.name, "profile_export_aiperf.json")).isFile;
    } catch {
      return false;
    }
  });
  if (found.length !== 1) throw new Error(`expected one run directory in ${base}, found ${found.length}`);
  return join(base, found[0].name);
}

/** Runs one tool through one scenario against a fresh simulator; returns the run directory and what it printed. */
export async function runScenario(
  scenario: Scenario,
  tool: "aiperf" | "infermeter",
  work: string,
  aiperf: string,
  options: { readonly scrapeEveryMs?: number } = {},
): Promise<{ dir: string; artifacts: string; run: Run; serverMetrics: string; journal: string; scrapes: string[] }> {
  const dir = join(work, `${scenario.name}-${tool}`);
  await Deno.mkdir(dir, { recursive: true });
  for (const [name, content] of Object.entries(scenario.files ?? {})) {
    await Deno.writeTextFile(join(dir, name), content);
  }
  const journal = join(dir, "journal.jsonl");
  const sim = await startSim(scenario.sim, journal);
  let result: Run;
  let serverMetrics = "";
  // The simulator's own /metrics, scraped beside the tool when asked (one series both estimators can be fed).
  const scrapes: string[] = [];
  let scraping = options.scrapeEveryMs !== undefined;
  const scraper = (async () => {
    while (scraping) {
      scrapes.push(await sim.metrics());
      await new Promise((resolve) => setTimeout(resolve, options.scrapeEveryMs));
    }
  })();
  try {
    const args = [...scenario.args, "--url", sim.url];
    result = tool === "aiperf" ? await runAiperf(aiperf, args, dir) : await runInfermeter(args, dir);
    serverMetrics = await sim.metrics();
  } finally {
    scraping = false;
    await scraper;
    await sim.stop();
  }
  if (result.code !== 0) {
    throw new Error(`${tool} ${scenario.name} exited ${result.code}:\n${result.stderr.slice(-3000)}`);
  }
  if (options.scrapeEveryMs !== undefined) scrapes.push(serverMetrics);
  return { dir, artifacts: artifactDir(dir), run: result, serverMetrics, journal, scrapes };
}
