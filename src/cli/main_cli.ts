/**
 * Top-level command dispatch. Each command lives in its own module and is imported only when used, so
 * `infermeter --version` starts in milliseconds and never loads tokenizers or the HTTP stack.
 */
import { EXIT } from "./exit_codes.ts";
import { VERSION } from "./version.ts";

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
    const hint = closest(first, Object.keys(COMMANDS));
    console.error(
      `error: unknown command '${first}'${hint ? ` (did you mean '${hint}'?)` : ""}; run 'infermeter --help'.`,
    );
    return EXIT.USAGE;
  }
  return await command.run([...rest]);
}

function closest(word: string, options: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDist = Infinity;
  for (const o of options) {
    const d = editDistance(word, o);
    if (d < bestDist) [best, bestDist] = [o, d];
  }
  return bestDist <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length];
}
