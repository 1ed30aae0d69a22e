/**
 * An accuracy run's files and table, in AIPerf 0.13's shapes:
 *
 * - `accuracy_export.jsonl` (`<prefix>_accuracy.jsonl`), one line per graded profiling answer, AIPerf's
 *   `AccuracyRecordsData` without `record_type`: `session_num, conversation_id, x_request_id, worker_id,
 *   benchmark_phase, timestamp_ns` (when the response ended), `task, grader_name, passed, unparsed, confidence,
 *   expected, actual, explanation, model_output`, and `model_thinking` when the model sent reasoning apart;
 * - `accuracy_results.csv`: `task,correct,total,unparsed,accuracy`, the OVERALL row first, then the tasks sorted, the
 *   accuracy with 4 decimals, CRLF line ends (Python's `csv.writer`);
 * - the console table "Accuracy Benchmark Results": Task, Correct, Total, Unparsed, Accuracy (percent, 2
 *   decimals), a rule between rows, OVERALL last; and the warning AIPerf prints when every answer was unparsed.
 *
 * Accuracy = correct / total; unparsed answers count in the total (they were graded, as wrong unless the fallback
 * found the right answer). Answers without a task count in OVERALL only.
 */
import { renderBoxTable } from "./box_table.ts";

/** One graded answer. */
export interface AccuracyRecord {
  readonly sessionNum: number;
  readonly conversationId: string;
  readonly xRequestId: string;
  readonly workerId: string;
  /** Epoch nanoseconds, as digits. */
  readonly timestampNs: string;
  readonly task: string | undefined;
  readonly graderName: string;
  readonly passed: boolean;
  readonly unparsed: boolean;
  readonly confidence: number;
  readonly expected: string;
  readonly actual: string;
  readonly explanation: string;
  readonly modelOutput: string;
  readonly modelThinking: string | undefined;
}

export interface TaskAccuracy {
  readonly total: number;
  readonly passed: number;
  readonly unparsed: number;
}

export interface AccuracySummary extends TaskAccuracy {
  readonly graderName: string | undefined;
  /** By task name, sorted. */
  readonly perTask: ReadonlyMap<string, TaskAccuracy>;
}

/** The overall and per-task counts of `records`. */
export function summarizeAccuracy(records: Iterable<AccuracyRecord>): AccuracySummary {
  let total = 0;
  let passed = 0;
  let unparsed = 0;
  let graderName: string | undefined;
  const tasks = new Map<string, { total: number; passed: number; unparsed: number }>();
  for (const r of records) {
    graderName ??= r.graderName;
    total++;
    if (r.passed) passed++;
    if (r.unparsed) unparsed++;
    if (r.task === undefined) continue;
    const t = tasks.get(r.task) ?? { total: 0, passed: 0, unparsed: 0 };
    t.total++;
    if (r.passed) t.passed++;
    if (r.unparsed) t.unparsed++;
    tasks.set(r.task, t);
  }
  const sorted = [...tasks.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { total, passed, unparsed, graderName, perTask: new Map(sorted.map((k) => [k, tasks.get(k)!])) };
}

/** Python's `float` in JSON: an integral value keeps its `.0`. */
function pyFloatJson(x: number): string {
  return Number.isInteger(x) ? x.toFixed(1) : JSON.stringify(x);
}

/** One line of the accuracy JSONL (without the line break). */
export function accuracyJsonlLine(r: AccuracyRecord): string {
  const q = JSON.stringify;
  return `{"session_num":${r.sessionNum},"conversation_id":${q(r.conversationId)},"x_request_id":${q(r.xRequestId)},` +
    `"worker_id":${q(r.workerId)},"benchmark_phase":"profiling","timestamp_ns":${r.timestampNs},` +
    `"task":${r.task === undefined ? "null" : q(r.task)},"grader_name":${q(r.graderName)},"passed":${r.passed},` +
    `"unparsed":${r.unparsed},"confidence":${pyFloatJson(r.confidence)},"expected":${q(r.expected)},` +
    `"actual":${q(r.actual)},"explanation":${q(r.explanation)},"model_output":${q(r.modelOutput)}` +
    (r.modelThinking === undefined ? "" : `,"model_thinking":${q(r.modelThinking)}`) + "}";
}

function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function rate(part: number, total: number): number {
  return total === 0 ? 0 : part / total;
}

/** One of AIPerf's `accuracy.*` entries of the summary exports: `count` answers graded, `sum` of them right (or
 * unparsed). */
export interface AccuracySummaryEntry {
  readonly tag: string;
  /** The CSV's metric name, without the unit. */
  readonly header: string;
  readonly count: number;
  readonly sum: number;
}

/**
 * The `accuracy.*` entries AIPerf 0.13 adds to `profile_export_aiperf.json` (`{"unit": "ratio", "count", "sum"}`)
 * and, with an empty value, to the single-value section of `profile_export_aiperf.csv`: `accuracy.overall`, then
 * `accuracy.task.<task>` per task, `accuracy.unparsed`, then `accuracy.unparsed.task.<task>`. None when nothing was
 * graded.
 */
export function accuracySummaryEntries(s: AccuracySummary): AccuracySummaryEntry[] {
  if (s.total === 0) return [];
  const tasks = [...s.perTask];
  return [
    { tag: "accuracy.overall", header: "Accuracy (Overall)", count: s.total, sum: s.passed },
    ...tasks.map(([task, t]) => ({
      tag: `accuracy.task.${task}`,
      header: `Accuracy (${task})`,
      count: t.total,
      sum: t.passed,
    })),
    { tag: "accuracy.unparsed", header: "Accuracy Unparsed (Overall)", count: s.total, sum: s.unparsed },
    ...tasks.map(([task, t]) => ({
      tag: `accuracy.unparsed.task.${task}`,
      header: `Accuracy Unparsed (${task})`,
      count: t.total,
      sum: t.unparsed,
    })),
  ];
}

/** `accuracy_results.csv`; empty when nothing was graded (AIPerf then writes no file). */
export function accuracyResultsCsv(s: AccuracySummary): string {
  if (s.total === 0) return "";
  const row = (task: string, t: TaskAccuracy) =>
    [csvField(task), t.passed, t.total, t.unparsed, rate(t.passed, t.total).toFixed(4)].join(",") + "\r\n";
  let out = "task,correct,total,unparsed,accuracy\r\n" + row("OVERALL", s);
  for (const [task, t] of s.perTask) out += row(task, t);
  return out;
}

/** The console table, and AIPerf's warning when every answer was unparsed; undefined when nothing was graded. */
export function accuracyTable(s: AccuracySummary, maxWidth: number): string | undefined {
  if (s.total === 0) return undefined;
  const pct = (t: TaskAccuracy) => `${(rate(t.passed, t.total) * 100).toFixed(2)}%`;
  const rows = [...s.perTask].map(([task, t]) => [task, String(t.passed), String(t.total), String(t.unparsed), pct(t)]);
  rows.push(["OVERALL", String(s.passed), String(s.total), String(s.unparsed), pct(s)]);
  const table = renderBoxTable(
    [
      { header: "Task", justify: "left", minWidth: 30, wrap: true },
      { header: "Correct" },
      { header: "Total" },
      { header: "Unparsed" },
      { header: "Accuracy" },
    ],
    rows,
    { title: "Accuracy Benchmark Results", maxWidth, showLines: true },
  );
  if (s.unparsed < s.total) return table;
  return table + "\nWarning: every accuracy response was unparsed (accuracy=0). The grader could not extract an " +
    "answer from any model output. Verify the inference server returns valid completions for this benchmark before " +
    "trusting the accuracy CSV.";
}
