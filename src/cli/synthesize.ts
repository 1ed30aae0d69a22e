/**
 * `infermeter synthesize agentic-code`: AIPerf's dataset synthesis. Draws the sessions
 * (`dataset/agentic_code_synthesizer.ts`), writes the run directory AIPerf writes — `dataset.jsonl` (Mooncake rows),
 * `manifest.json`, `quality.json`, `comparison.txt` — and a `report.html` of the same figures, checks the trace as
 * `infermeter validate mooncake-trace` does, and says where everything is.
 */
import { ConfigError } from "../config/config_error.ts";
import { parseCommandArgs } from "../config/parse_command_args.ts";
import { isHelpRequest } from "../config/read_cli_args.ts";
import { renderHelp } from "../config/render_help.ts";
import { didYouMeanHint } from "../base/did_you_mean.ts";
import { SeededRandom } from "../base/seeded_random.ts";
import {
  type AgenticCodeConfig,
  AgenticCodeConfigError,
  BUNDLED_AGENTIC_CODE_CONFIGS,
  configJson,
  parseAgenticCodeConfig,
} from "../dataset/agentic_code_config.ts";
import { AgenticCodeSynthesizer, mooncakeRows } from "../dataset/agentic_code_synthesizer.ts";
import {
  comparisonText,
  percentileStats,
  type QualityReport,
  qualityReport,
  sessionDurationsMin,
} from "../dataset/agentic_code_quality.ts";
import { EXIT } from "./exit_codes.ts";
import { SYNTHESIZE_COMMAND, SYNTHESIZE_TARGETS } from "./synthesize_command.ts";
import { validateMooncakeTrace } from "./validate.ts";

export interface SynthesizeIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** The run directory's time stamp. @default now */
  readonly now?: () => Date;
}

const DEFAULT_IO: SynthesizeIo = {
  stdout: (text) => console.log(text.replace(/\n$/, "")),
  stderr: (text) => console.error(text.replace(/\n$/, "")),
};

/** The config `--config` names (a bundled name first, then a file), and the name the run directory takes. */
async function readConfig(spec: string | undefined): Promise<{ config: AgenticCodeConfig; name: string }> {
  if (spec === undefined) return { config: parseAgenticCodeConfig({}), name: "default" };
  const bundled = BUNDLED_AGENTIC_CODE_CONFIGS[spec];
  if (bundled !== undefined) return { config: parseAgenticCodeConfig(bundled), name: spec };
  let text: string;
  try {
    text = await Deno.readTextFile(spec);
  } catch {
    throw new ConfigError([
      `--config '${spec}' is neither a bundled config (${Object.keys(BUNDLED_AGENTIC_CODE_CONFIGS).join(", ")}) ` +
      "nor a readable file.",
    ]);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new ConfigError([`--config ${spec} is not valid JSON (${(e as Error).message}).`]);
  }
  try {
    const base = spec.replace(/^.*[\\/]/, "");
    return { config: parseAgenticCodeConfig(raw), name: base.replace(/\.[^.]*$/, "") || base };
  } catch (e) {
    if (e instanceof AgenticCodeConfigError) throw new ConfigError([`--config ${spec}: ${e.message}.`]);
    throw e;
  }
}

const stamp = (d: Date) =>
  `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, "0")}${String(d.getUTCDate()).padStart(2, "0")}-` +
  `${String(d.getUTCHours()).padStart(2, "0")}${String(d.getUTCMinutes()).padStart(2, "0")}` +
  `${String(d.getUTCSeconds()).padStart(2, "0")}`;

const escape = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

/** A self-contained page of the quality figures. */
function reportHtml(q: QualityReport, comparison: string, title: string): string {
  const rows = Object.entries(q.observed_vs_target).map(([name, m]) =>
    `<tr><td>${escape(name)}</td><td>${m.target_mean ?? "–"}</td><td>${m.observed.mean}</td>` +
    `<td>${m.target_median ?? "–"}</td><td>${m.observed.median}</td><td>${m.observed.p05}</td>` +
    `<td>${m.observed.p95}</td><td>${m.observed.p99}</td></tr>`
  ).join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;color:#222}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:.3rem .6rem;text-align:right}td:first-child{text-align:left}
pre{background:#f6f6f6;padding:1rem}</style></head>
<body><h1>${escape(title)}</h1>
<h2>Observed against the config's targets</h2>
<table><tr><th>metric</th><th>target mean</th><th>mean</th><th>target median</th><th>median</th><th>p05</th>
<th>p95</th><th>p99</th></tr>
${rows}
</table>
<h2>Comparison</h2>
<pre>${escape(comparison)}</pre>
</body></html>
`;
}

export async function runSynthesize(args: string[], io: SynthesizeIo = DEFAULT_IO): Promise<number> {
  if (isHelpRequest(args)) {
    io.stdout(renderHelp(SYNTHESIZE_COMMAND));
    return EXIT.OK;
  }
  let values, config: AgenticCodeConfig, configName: string;
  try {
    const parsed = parseCommandArgs(SYNTHESIZE_COMMAND, args);
    values = parsed.values;
    const target = parsed.operands[0] ?? values.target;
    if (target === undefined || parsed.operands.length > 1) {
      throw new ConfigError([`name the workload to synthesize: infermeter synthesize ${SYNTHESIZE_TARGETS.join("|")}`]);
    }
    if (!(SYNTHESIZE_TARGETS as readonly string[]).includes(target)) {
      throw new ConfigError([
        `'${target}' is not a workload synthesize builds;${didYouMeanHint(target, SYNTHESIZE_TARGETS)} workloads: ` +
        `${SYNTHESIZE_TARGETS.join(", ")}.`,
      ]);
    }
    ({ config, name: configName } = await readConfig(values.config));
    if (values.maxIsl !== undefined || values.maxOsl !== undefined) {
      // The overrides go through the same checks as the config (AIPerf revalidates the model).
      const raw = configJson(config);
      if (values.maxIsl !== undefined) raw.max_prompt_tokens = values.maxIsl;
      if (values.maxOsl !== undefined) {
        raw.generation_length = { ...(raw.generation_length as Record<string, unknown>), max: values.maxOsl };
      }
      try {
        config = parseAgenticCodeConfig(raw);
      } catch (e) {
        if (e instanceof AgenticCodeConfigError) throw new ConfigError([`--max-isl/--max-osl: ${e.message}.`]);
        throw e;
      }
    }
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    io.stderr(`error: ${e.message}\n`);
    return EXIT.USAGE;
  }
  const n = values.numSessions;
  const seed = values.seed;
  const runDir = `${values.output.replace(/\/$/, "")}/${configName}_${n}s_seed${seed}_${
    stamp((io.now ?? (() => new Date()))())
  }`;
  io.stdout(`Generating ${n} sessions (seed=${seed})...\n`);
  let sessions;
  try {
    sessions = new AgenticCodeSynthesizer(config, new SeededRandom(seed)).synthesizeSessions(n);
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    io.stderr(`error: ${e.message}\n`);
    return EXIT.USAGE;
  }
  const quality = qualityReport(sessions, config);
  const comparison = comparisonText(quality, percentileStats(sessionDurationsMin(sessions)));
  const files = {
    jsonl: `${runDir}/dataset.jsonl`,
    manifest: `${runDir}/manifest.json`,
    quality: `${runDir}/quality.json`,
    comparison: `${runDir}/comparison.txt`,
    report: `${runDir}/report.html`,
  };
  try {
    await Deno.mkdir(runDir, { recursive: true });
    const file = await Deno.open(files.jsonl, { write: true, create: true, truncate: true });
    const writer = file.writable.getWriter();
    const encoder = new TextEncoder();
    let batch = "";
    for (const row of mooncakeRows(sessions, config.blockSize)) {
      batch += row + "\n";
      if (batch.length > 1 << 20) {
        await writer.write(encoder.encode(batch));
        batch = "";
      }
    }
    await writer.write(encoder.encode(batch));
    await writer.close();
    const manifest = {
      seed,
      num_sessions: sessions.length,
      config_name: configName,
      generation_params: configJson(config),
    };
    await Deno.writeTextFile(files.manifest, JSON.stringify(manifest, null, 2) + "\n");
    await Deno.writeTextFile(files.quality, JSON.stringify(quality, null, 2) + "\n");
    await Deno.writeTextFile(files.comparison, comparison);
    await Deno.writeTextFile(files.report, reportHtml(quality, comparison, `Agentic code dataset: ${configName}`));
  } catch (e) {
    io.stderr(`error: ${runDir}: cannot be written (${(e as Error).message})\n`);
    return EXIT.RESULTS_UNWRITTEN;
  }
  const checked = await validateMooncakeTrace(files.jsonl);
  if (checked.errors.length > 0) {
    io.stdout(
      `Validation failed with ${checked.errors.length} error(s):\n${checked.errors.map((e) => `  ${e}\n`).join("")}`,
    );
    return EXIT.REQUESTS_FAILED;
  }
  const turns = sessions.reduce((t, s) => t + s.turns.length, 0);
  io.stdout(
    `Run directory: ${runDir}\n` +
      `  JSONL:           ${files.jsonl} (${turns} turns)\n` +
      `  Manifest:        ${files.manifest}\n` +
      `  Quality:         ${files.quality}\n` +
      `  Validation:      Mooncake trace (${checked.rows} rows)\n` +
      `  Dashboard:       ${files.report}\n\n` + comparison,
  );
  return EXIT.OK;
}
