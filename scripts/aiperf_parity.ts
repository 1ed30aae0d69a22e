/**
 * Runs AIPerf 0.13 and infermeter with the same command lines against one `serve-sim` on loopback, then compares
 * what a user switching tools sees: the export files' shapes (CSV header and rows, JSON keys, JSONL and raw record
 * fields, inputs.json, console table titles and rows) and the numbers of the metrics both report.
 *
 *   deno run -A scripts/aiperf_parity.ts [--aiperf /path/to/aiperf] [--out docs/aiperf_parity.md]
 *
 * AIPerf comes from `pip install aiperf==0.13.*` in a virtual environment (`--aiperf` or `$AIPERF_BIN`, default
 * `aiperf` on the PATH). Both tools count tokens with the same local `tokenizer.json` (the test fixture, a toy
 * byte-level BPE); timing metrics are compared as relative differences (two clients, one server).
 */
import { join } from "node:path";
import { optionSectionOf, withOptionSection } from "./aiperf_parity/option_parity.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const TOKENIZER = "tests/fixtures/tiny_bpe";

interface Scenario {
  readonly name: string;
  readonly args: readonly string[];
}

function flag(name: string): string | undefined {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Deno.args[i + 1] : undefined;
}

const AIPERF = flag("--aiperf") ?? Deno.env.get("AIPERF_BIN") ?? "aiperf";
const OUT = flag("--out");

const COMMON = [
  "--model",
  "Qwen/Qwen3-0.6B",
  "--tokenizer",
  TOKENIZER,
  "--synthetic-input-tokens-mean",
  "100",
  "--synthetic-input-tokens-stddev",
  "0",
  "--output-tokens-mean",
  "50",
  "--output-tokens-stddev",
  "0",
  "--request-count",
  "40",
  "--concurrency",
  "4",
  "--extra-inputs",
  "ignore_eos:true",
  "--random-seed",
  "7",
  "--export-level",
  "raw",
  "--slice-duration",
  "0.5",
  "--ui",
  "none",
];

const SCENARIOS: readonly Scenario[] = [
  { name: "chat, streaming", args: ["--endpoint-type", "chat", "--streaming"] },
  { name: "completions, non-streaming", args: ["--endpoint-type", "completions"] },
];

async function startSim(): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", join(ROOT, "main.ts"), "serve-sim", "--port", "0", "--ttft", "30", "--itl", "5"],
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
    stop: async () => {
      child.kill("SIGTERM");
      reader.cancel().catch(() => {});
      await child.status;
    },
  };
}

async function run(
  cmd: string,
  args: string[],
  cwd: string,
  env?: Record<string, string>,
): Promise<{ code: number; stdout: string }> {
  const out = await new Deno.Command(cmd, { args, cwd, env, stdout: "piped", stderr: "piped" }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  if (out.code !== 0) console.error(`${cmd} exited ${out.code}:\n${new TextDecoder().decode(out.stderr).slice(-3000)}`);
  return { code: out.code, stdout };
}

/** The single artifact directory a run wrote under `dir`. */
function artifactDir(dir: string): string {
  const found = [...Deno.readDirSync(dir)].filter((e) => e.isDirectory && e.name !== "logs");
  if (found.length !== 1) throw new Error(`expected one artifact directory in ${dir}`);
  return join(dir, found[0].name);
}

type Json = Record<string, unknown>;

function readJson(path: string): Json {
  return JSON.parse(Deno.readTextFileSync(path));
}

function firstLine(path: string): Json {
  return JSON.parse(Deno.readTextFileSync(path).split("\n")[0]);
}

/** `a \ b`, `b \ a` and whether the shared keys come in the same order. */
function keyDiff(ours: string[], theirs: string[]): { onlyOurs: string[]; onlyTheirs: string[]; sameOrder: boolean } {
  const common = ours.filter((k) => theirs.includes(k));
  const theirOrder = theirs.filter((k) => ours.includes(k));
  return {
    onlyOurs: ours.filter((k) => !theirs.includes(k)),
    onlyTheirs: theirs.filter((k) => !ours.includes(k)),
    sameOrder: common.join() === theirOrder.join(),
  };
}

function diffLine(what: string, d: ReturnType<typeof keyDiff>): string {
  const parts = [];
  parts.push(
    d.onlyTheirs.length === 0 ? "all of AIPerf's" : `missing: ${d.onlyTheirs.map((k) => `\`${k}\``).join(", ")}`,
  );
  if (d.onlyOurs.length > 0) parts.push(`extra: ${d.onlyOurs.map((k) => `\`${k}\``).join(", ")}`);
  parts.push(d.sameOrder ? "same order" : "order differs");
  return `| ${what} | ${parts.join("; ")} |`;
}

/** Console tables: title → row labels (wrapped names joined). */
function consoleTables(text: string): Map<string, string[]> {
  const tables = new Map<string, string[]>();
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = /\|\s*(LLM Metrics.*?)\s*$/.exec(lines[i]);
    if (!m || !lines[i + 1]?.startsWith("┏")) continue;
    const rows: string[] = [];
    for (let j = i + 4; j < lines.length && !lines[j].startsWith("└"); j++) {
      const cells = lines[j].split("│").slice(1, -1).map((c) => c.trim());
      if (cells.slice(1).every((c) => c === "") && rows.length > 0) rows[rows.length - 1] += " " + cells[0];
      else rows.push(cells[0]);
    }
    tables.set(m[1], rows);
  }
  return tables;
}

function csvRows(text: string): { header: string; labels: string[] } {
  const lines = text.split(/\r?\n/);
  return {
    header: lines[0],
    labels: lines.filter((l) => l !== "" && !l.startsWith("Metric,")).map((l) => l.split(",")[0]),
  };
}

function fmt(x: unknown): string {
  return typeof x === "number" ? x.toFixed(2) : "—";
}

/** Metrics compared by value: exact ones (token counts) and timing ones (relative difference). */
const EXACT = ["input_sequence_length", "output_sequence_length", "request_count", "total_isl", "total_osl"];
const TIMED = [
  "time_to_first_token",
  "inter_token_latency",
  "request_latency",
  "decode_duration",
  "output_token_throughput",
  "request_throughput",
  "http_req_waiting",
  "http_req_receiving",
  "http_req_chunks_received",
  "http_req_data_received",
  "http_req_data_sent",
  "http_req_connection_reused",
  "usage_prompt_tokens",
  "usage_completion_tokens",
  "effective_latency",
  "benchmark_duration",
];

/** The PNGs `aiperf plot` made from a directory (its exit status when it failed). */
async function plots(dir: string, output: string, home: string): Promise<string> {
  // AIPerf writes its plot configuration under $HOME/.aiperf on first use: keep it in the work directory.
  const r = await run(AIPERF, ["plot", dir, "--output", output], dir, { HOME: home });
  if (r.code !== 0) return `exit ${r.code}`;
  const files = [...Deno.readDirSync(output)].map((e) => e.name).filter((n) => n.endsWith(".png")).sort();
  return files.length === 0 ? "no plots" : files.join(", ");
}

/** `aiperf plot` on AIPerf's directory and on ours: the same plots, or what differs. */
async function plotLine(theirs: string, ours: string, work: string): Promise<string> {
  const home = join(work, "home");
  await Deno.mkdir(home, { recursive: true });
  const a = await plots(theirs, join(work, "plots_aiperf"), home);
  const o = await plots(ours, join(work, "plots_infermeter"), home);
  return `| \`aiperf plot\` | ${a === o ? `same plots from both directories: ${o}` : `AIPerf's: ${a}; ours: ${o}`} |`;
}

async function compare(scenario: Scenario, url: string, work: string): Promise<string[]> {
  const args = ["profile", ...COMMON, ...scenario.args, "--url", url];
  const theirsDir = join(work, "aiperf");
  const oursDir = join(work, "infermeter");
  await Deno.mkdir(theirsDir, { recursive: true });
  await Deno.mkdir(oursDir, { recursive: true });
  const args2 = args.map((x) => (x === TOKENIZER ? join(ROOT, TOKENIZER) : x));
  const a = await run(AIPERF, args2, theirsDir);
  const o = await run(Deno.execPath(), ["run", "-A", join(ROOT, "main.ts"), ...args2], oursDir);
  const out = [`## ${scenario.name}`, ""];
  if (a.code !== 0 || o.code !== 0) {
    return [...out, `AIPerf exited ${a.code}, infermeter ${o.code}; nothing compared.`, ""];
  }
  const A = artifactDir(join(theirsDir, "artifacts"));
  const O = artifactDir(join(oursDir, "artifacts"));
  out.push(`Artifact directories: AIPerf \`${A.split("/").pop()}\`, infermeter \`${O.split("/").pop()}\`.`, "");

  const csvA = csvRows(Deno.readTextFileSync(join(A, "profile_export_aiperf.csv")));
  const csvO = csvRows(Deno.readTextFileSync(join(O, "profile_export_aiperf.csv")));
  const jsonA = readJson(join(A, "profile_export_aiperf.json"));
  const jsonO = readJson(join(O, "profile_export_aiperf.json"));
  const recA = firstLine(join(A, "profile_export.jsonl"));
  const recO = firstLine(join(O, "profile_export.jsonl"));
  const rawA = firstLine(join(A, "profile_export_raw.jsonl"));
  const rawO = firstLine(join(O, "profile_export_raw.jsonl"));
  const inA = readJson(join(A, "inputs.json"));
  const inO = readJson(join(O, "inputs.json"));
  const keys = (x: unknown) => Object.keys(x as Json);

  out.push("| Shape | Compared with AIPerf |", "| --- | --- |");
  out.push(`| CSV header | ${csvA.header === csvO.header ? "identical" : `differs: \`${csvO.header}\``} |`);
  out.push(diffLine("CSV rows (labels)", keyDiff(csvO.labels, csvA.labels.filter((l) => l !== "Endpoint"))));
  out.push(diffLine("JSON top-level keys", keyDiff(keys(jsonO), keys(jsonA))));
  out.push(diffLine("JSON `input_config` keys", keyDiff(keys(jsonO.input_config), keys(jsonA.input_config))));
  out.push(diffLine("JSON `run_info` keys", keyDiff(keys(jsonO.run_info), keys(jsonA.run_info))));
  out.push(diffLine("JSONL record keys", keyDiff(keys(recO), keys(recA))));
  out.push(diffLine("JSONL `metadata` keys", keyDiff(keys(recO.metadata), keys(recA.metadata))));
  out.push(diffLine("JSONL `metrics` keys", keyDiff(keys(recO.metrics), keys(recA.metrics))));
  out.push(diffLine("Raw record keys", keyDiff(keys(rawO), keys(rawA))));
  out.push(diffLine("Raw `request_headers`", keyDiff(keys(rawO.request_headers), keys(rawA.request_headers))));
  const sessions = (x: Json) => (x.data as Json[]).map((d) => d.session_id as string);
  out.push(
    `| inputs.json | keys ${keys(inO).join() === keys(inA).join() ? "identical" : "differ"}; session ids ${
      sessions(inO).slice(0, 2).join(", ")
    }… vs ${sessions(inA).slice(0, 2).join(", ")}… |`,
  );
  const tabA = consoleTables(Deno.readTextFileSync(join(A, "profile_export_console.txt")));
  const tabO = consoleTables(Deno.readTextFileSync(join(O, "profile_export_console.txt")));
  out.push(diffLine("Console tables (titles)", keyDiff([...tabO.keys()], [...tabA.keys()])));
  for (const [title, rows] of tabA) out.push(diffLine(`Console "${title}" rows`, keyDiff(tabO.get(title) ?? [], rows)));
  out.push(await plotLine(A, O, work));
  out.push("");

  out.push(
    "| Metric | AIPerf avg | infermeter avg | Δ avg | AIPerf p50 | infermeter p50 | AIPerf p99 | infermeter p99 |",
  );
  out.push("| --- | --: | --: | --: | --: | --: | --: | --: |");
  for (const tag of [...EXACT, ...TIMED]) {
    const x = jsonA[tag] as Json | undefined;
    const y = jsonO[tag] as Json | undefined;
    if (x === undefined && y === undefined) continue;
    const ax = x?.avg as number | undefined;
    const ay = y?.avg as number | undefined;
    const delta = ax !== undefined && ay !== undefined
      ? (EXACT.includes(tag)
        ? (ax === ay ? "equal" : (ay - ax).toFixed(2))
        : `${(((ay - ax) / (ax || 1)) * 100).toFixed(1)} %`)
      : "—";
    out.push(
      `| ${tag} | ${fmt(ax)} | ${fmt(ay)} | ${delta} | ${fmt(x?.p50)} | ${fmt(y?.p50)} | ${fmt(x?.p99)} | ${
        fmt(y?.p99)
      } |`,
    );
  }
  out.push("");
  return out;
}

const sim = await startSim();
const work = await Deno.makeTempDir({ prefix: "aiperf_parity_" });
const version = await run(AIPERF, ["--version"], work);
const report = [
  "# infermeter vs AIPerf 0.13: side by side",
  "",
  `Generated by \`deno run -A scripts/aiperf_parity.ts\` on ${new Date().toISOString().slice(0, 10)}: both tools ran ` +
  `the same command lines against one \`serve-sim --ttft 30 --itl 5\` on loopback (AIPerf: \`${
    version.stdout.trim() || AIPERF
  }\`), counting tokens with the same local tokenizer.json. Shapes compare the files' structure; numbers compare the ` +
  "metrics both report (token counts agree when both count with the server's own tokenizer; timings come from two " +
  "different clients on a shared 2-core machine).",
  "",
  "```",
  `… profile ${COMMON.join(" ")} <endpoint options> --url http://127.0.0.1:<port>`,
  "```",
  "",
];
try {
  for (const scenario of SCENARIOS) {
    report.push(...await compare(scenario, sim.url, join(work, scenario.name.replace(/\W+/g, "_"))));
  }
} finally {
  await sim.stop();
}
let text = report.join("\n");
if (OUT) {
  // The option-by-option section is generated from the option tables apart (write_option_parity.ts): keep it.
  const previous = await Deno.readTextFile(OUT).catch(() => "");
  const options = optionSectionOf(previous);
  if (options !== undefined) text = withOptionSection(text, options);
  await Deno.writeTextFile(OUT, text);
}
console.log(text);
console.error(`artifacts kept in ${work}`);
