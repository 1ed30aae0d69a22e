/**
 * Runs a peer tool and infermeter with the same workload against one `serve-sim` on loopback, then compares the
 * peer's own numbers with what `infermeter profile --peer-metrics` computes for that peer from infermeter's
 * records: the definitions agree when the two columns agree within the noise of two clients.
 *
 *   deno run -A scripts/peers_side_by_side.ts [--guidellm /path/to/guidellm] [--requests 40] [--concurrency 4]
 *       [--ttft 40] [--itl 5] [--tokens-per-chunk 1]
 *
 * GuideLLM comes from `pip install guidellm` in a virtual environment (`--guidellm` or `$GUIDELLM_BIN`, default
 * `guidellm` on the PATH); it counts tokens with the repository's toy tokenizer (tests/fixtures/tiny_bpe), and
 * output lengths are the server's usage for both tools (`ignore_eos`). Prints a Markdown table.
 */
import { join } from "node:path";

const ROOT = new URL("..", import.meta.url).pathname;

function flag(name: string, fallback: string): string {
  const i = Deno.args.indexOf(name);
  return i >= 0 ? Deno.args[i + 1] : fallback;
}

const GUIDELLM = flag("--guidellm", Deno.env.get("GUIDELLM_BIN") ?? "guidellm");
const REQUESTS = flag("--requests", "40");
const CONCURRENCY = flag("--concurrency", "4");
const TTFT = flag("--ttft", "40");
const ITL = flag("--itl", "5");
const TPC = flag("--tokens-per-chunk", "1");
const INPUT = "50";
const OUTPUT = "20";

async function startSim(): Promise<{ url: string; child: Deno.ChildProcess }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      join(ROOT, "main.ts"),
      "serve-sim",
      "--port",
      "0",
      "--ttft",
      TTFT,
      "--itl",
      ITL,
      "--tokens-per-chunk",
      TPC,
      "--seed",
      "1",
    ],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!/http:\/\/[\d.]+:\d+/.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error("serve-sim exited before listening");
    text += value;
  }
  reader.releaseLock();
  return { url: /http:\/\/[\d.]+:\d+/.exec(text)![0], child };
}

async function run(cmd: string, args: string[], cwd: string): Promise<void> {
  const out = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) {
    throw new Error(`${cmd} ${args.join(" ")} failed:\n${new TextDecoder().decode(out.stderr).slice(-2000)}`);
  }
}

type Json = Record<string, unknown>;
const at = (o: unknown, ...path: (string | number)[]): number => {
  let x = o;
  for (const p of path) x = (x as Json)[p];
  if (typeof x !== "number") throw new Error(`no number at ${path.join(".")}`);
  return x;
};

const sim = await startSim();
const work = await Deno.makeTempDir({ prefix: "peers-sbs-" });
try {
  // Warm the simulator's JIT so neither tool pays for it.
  await run(Deno.execPath(), [
    "run",
    "-A",
    join(ROOT, "main.ts"),
    "profile",
    "--url",
    sim.url,
    "--model",
    "m",
    "--endpoint-type",
    "chat",
    "--streaming",
    "--request-count",
    "20",
    "--concurrency",
    CONCURRENCY,
    "--ui",
    "none",
    "--artifact-dir",
    join(work, "warm"),
  ], work);
  await run(Deno.execPath(), [
    "run",
    "-A",
    join(ROOT, "main.ts"),
    "profile",
    "--url",
    sim.url,
    "--model",
    "m",
    "--endpoint-type",
    "chat",
    "--streaming",
    "--request-count",
    REQUESTS,
    "--concurrency",
    CONCURRENCY,
    "--synthetic-input-tokens-mean",
    INPUT,
    "--output-tokens-mean",
    OUTPUT,
    "--extra-inputs",
    "ignore_eos:true",
    "--use-server-token-count",
    "--tokenizer",
    join(ROOT, "tests/fixtures/tiny_bpe"),
    "--ui",
    "none",
    "--artifact-dir",
    join(work, "infermeter"),
    "--peer-metrics",
    "guidellm",
  ], work);
  await run(GUIDELLM, [
    "run",
    "--backend",
    `kind=openai_http,target=${sim.url},request_format=/v1/chat/completions,model=m`,
    "--profile",
    `kind=concurrent,streams=${CONCURRENCY}`,
    "--constraint",
    `kind=max_requests,count=${REQUESTS}`,
    "--tokenizer",
    `kind=huggingface_auto,model=${join(ROOT, "tests/fixtures/tiny_bpe")}`,
    "--data",
    `kind=synthetic_text,prompt_tokens=${INPUT},output_tokens=${OUTPUT}`,
    "--output",
    "kind=json",
    "--disable-console-interactive",
  ], work);
  const peers = JSON.parse(await Deno.readTextFile(join(work, "infermeter/peer_metrics.json")));
  const values = new Map<string, number>(
    (peers.peers[0].values as { key: string; value: number }[]).map((v) => [v.key, v.value]),
  );
  const m = JSON.parse(await Deno.readTextFile(join(work, "benchmarks.json"))).benchmarks[0].metrics;
  const rows: [string, number, number][] = [];
  for (
    const [label, key, path] of [
      ["TTFT mean (ms)", "time_to_first_token_ms.mean", ["time_to_first_token_ms", "successful", "mean"]],
      ["TTFT median (ms)", "time_to_first_token_ms.median", ["time_to_first_token_ms", "successful", "median"]],
      ["ITL mean (ms)", "inter_token_latency_ms.mean", ["inter_token_latency_ms", "successful", "mean"]],
      ["ITL median (ms)", "inter_token_latency_ms.median", ["inter_token_latency_ms", "successful", "median"]],
      ["TPOT mean (ms)", "time_per_output_token_ms.mean", ["time_per_output_token_ms", "successful", "mean"]],
      ["TPOT median (ms)", "time_per_output_token_ms.median", ["time_per_output_token_ms", "successful", "median"]],
      ["Request latency mean (s)", "request_latency.mean", ["request_latency", "successful", "mean"]],
    ] as const
  ) {
    rows.push([label, at(m, ...path), values.get(key) ?? NaN]);
  }
  console.log(
    `serve-sim --ttft ${TTFT} --itl ${ITL} --tokens-per-chunk ${TPC}; chat, streaming, ${REQUESTS} requests, ` +
      `concurrency ${CONCURRENCY}, ${INPUT} → ${OUTPUT} tokens\n`,
  );
  console.log("| Metric | GuideLLM itself | infermeter --peer-metrics guidellm | difference |");
  console.log("|---|---:|---:|---:|");
  for (const [label, theirs, ours] of rows) {
    console.log(
      `| ${label} | ${theirs.toFixed(3)} | ${ours.toFixed(3)} | ${(100 * (ours / theirs - 1)).toFixed(1)} % |`,
    );
  }
} finally {
  sim.child.kill("SIGTERM");
  await sim.child.status;
  await Deno.remove(work, { recursive: true });
}
