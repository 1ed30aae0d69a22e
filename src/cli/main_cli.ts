/**
 * Top-level command dispatch. Each command lives in its own module and is imported only when used, so
 * `infermeter --version` starts in milliseconds and never loads tokenizers or the HTTP stack.
 */
import { EXIT } from "./exit_codes.ts";
import { VERSION } from "../base/version.ts";
import { didYouMeanHint } from "../base/did_you_mean.ts";

interface CommandEntry {
  readonly summary: string;
  readonly run: (args: string[]) => Promise<number>;
}

const COMMANDS: Readonly<Record<string, CommandEntry>> = {
  profile: {
    summary: "Benchmark an OpenAI-compatible inference server (AIPerf-compatible flags).",
    run: async (args) => (await import("./profile.ts")).runProfile(args),
  },
  "serve-sim": {
    summary: "Run the simulated OpenAI-compatible inference server (no GPU, no network).",
    run: async (args) => (await import("./serve_sim.ts")).runServeSim(args),
  },
  calibrate: {
    summary: "Measure the timing error the client adds, against a server with known, paced latencies.",
    run: async (args) => (await import("./calibrate.ts")).runCalibrate(args),
  },
  replay: {
    summary: "Send a run bundle's requests again (profile --bundle): same bodies, sessions and schedule.",
    run: async (args) => (await import("./replay.ts")).runReplay(args),
  },
  compare: {
    summary: "Compare runs' statistics side by side; --fail-on thresholds for CI.",
    run: async (args) => (await import("./compare.ts")).runCompare(args),
  },
  plot: {
    summary: "Draw a run's charts (PNG or SVG) and its self-contained report.html; several runs: sweep charts.",
    run: async (args) => (await import("./plot.ts")).runPlot(args),
  },
  peers: {
    summary: "Report a finished run as vLLM, SGLang, GuideLLM, LLMPerf and GenAI-Perf would, with their definitions.",
    run: async (args) => (await import("./peers.ts")).runPeers(args),
  },
  config: {
    summary: "Write (init), check (validate) or show resolved (expand) a profile configuration file.",
    run: async (args) => (await import("./config.ts")).runConfig(args),
  },
  shard: {
    summary: "Run one shard of a profile and stream its records as JSON lines (for multi-process and multi-host runs).",
    run: async (args) => (await import("./shard.ts")).runShard(args),
  },
  kube: {
    summary: "Run a profile from the pods of a Kubernetes Indexed Job (generate the manifests, or run and merge).",
    run: async (args) => (await import("./kube.ts")).runKube(args),
  },
  chat: {
    summary: "Chat with a server one message at a time, printing each reply's TTFT, tokens/s and ITL.",
    run: async (args) => (await import("./chat.ts")).runChat(args),
  },
  analyze: {
    summary: "Views of a finished run: session swim lanes (PNG), the messages each turn sent (HTML).",
    run: async (args) => (await import("./analyze.ts")).runAnalyze(args),
  },
  "analyze-trace": {
    summary: "Analyze a Mooncake trace: ISL/OSL distributions, shared prefixes, theoretical cache hit rates.",
    run: async (args) => (await import("./analyze_trace.ts")).runAnalyzeTrace(args),
  },
  synthesize: {
    summary: "Synthesize a dataset workload (agentic-code: coding-agent sessions as a Mooncake trace with cache ids).",
    run: async (args) => (await import("./synthesize.ts")).runSynthesize(args),
  },
  validate: {
    summary: "Check that a file is a valid artifact (mooncake-trace) before a run uses it.",
    run: async (args) => (await import("./validate.ts")).runValidate(args),
  },
  "speed-bench-report": {
    summary: "Assemble per-category SPEED-Bench runs into the acceptance-length (or rate, or throughput) matrix.",
    run: async (args) => (await import("./speed_bench_report.ts")).runSpeedBenchReport(args),
  },
  plugins: {
    summary: "List the endpoint types, dataset types, load strategies, outputs and metrics infermeter is built from.",
    run: async (args) => (await import("./plugins.ts")).runPlugins(args),
  },
  demo: {
    summary: "Start the simulated server, profile it, print the results and stop it.",
    run: async (args) => (await import("./demo.ts")).runDemo(args),
  },
};

export function mainHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return [
    "Usage: infermeter <command> [options]",
    "",
    "Benchmark LLM inference servers: time to first token, inter-token latency, throughput, goodput.",
    "",
    "Commands:",
    ...lines,
    "",
    "Options:",
    "  -h, --help     Show this help (also: infermeter <command> --help).",
    "  -V, --version  Print the version.",
    "",
  ].join("\n");
}

export async function runCli(args: readonly string[]): Promise<number> {
  const [first, ...rest] = args;
  if (first === undefined || first === "-h" || first === "--help" || first === "help") {
    console.log(mainHelp());
    return first === undefined ? EXIT.USAGE : EXIT.OK;
  }
  if (first === "-V" || first === "--version" || first === "version") {
    console.log(VERSION);
    return EXIT.OK;
  }
  const command = COMMANDS[first];
  if (!command) {
    const hint = didYouMeanHint(first, Object.keys(COMMANDS));
    console.error(`error: unknown command '${first}';${hint} Run 'infermeter --help' for the commands.`);
    return EXIT.USAGE;
  }
  return await command.run([...rest]);
}
