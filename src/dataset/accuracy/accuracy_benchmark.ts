/**
 * The contract of an accuracy benchmark (`--accuracy-benchmark`): where its problems come from and how each becomes
 * a prompt, as AIPerf 0.13's benchmark of that name builds it, with the grader, few-shot count, chain-of-thought
 * default and system prompt AIPerf declares for it. A benchmark only reads data already on this machine
 * (`benchmark_source.ts`); it never downloads.
 */
import type { RegistryEntry } from "../../base/registry.ts";
import type { BenchmarkSource } from "./benchmark_source.ts";

/** One message of a problem's chat prompt. */
export interface AccuracyMessage {
  readonly role: "system" | "user" | "assistant";
  readonly content: string;
}

/** One problem, as AIPerf's `BenchmarkProblem`. */
export interface BenchmarkProblem {
  /** The flat prompt (the completions endpoint's text). */
  readonly prompt: string;
  /** What the grader compares the answer with (a letter, a number, a LaTeX answer, test cases as JSON…). */
  readonly groundTruth: string;
  /** The task or subtask it belongs to (an MMLU subject, a BBH subtask). */
  readonly task: string;
  /** The chat messages (few-shot turns, then the question); one user message with `prompt` when absent. */
  readonly messages?: readonly AccuracyMessage[];
  /** `max_tokens` of its request (AIPerf's `generation_size`); 100 when absent. */
  readonly generationSize?: number;
  /** Server-side stop sequences (MMLU without chain of thought stops at the first line break). */
  readonly stop?: readonly string[];
}

/** What a benchmark is loaded with: the options as resolved against its defaults. */
export interface BenchmarkLoadContext {
  /** `--accuracy-tasks`; undefined = every task. */
  readonly tasks?: readonly string[];
  readonly nShots: number;
  readonly enableCot: boolean;
  readonly source: BenchmarkSource;
  /** Environment lookups (the LiveCodeBench release pin). */
  readonly env: (name: string) => string | undefined;
  /** Notices said once (an option the benchmark ignores). */
  readonly info: (message: string) => void;
}

export interface AccuracyBenchmark extends RegistryEntry {
  /** The grader used when `--accuracy-grader` is not given. */
  readonly defaultGrader: string;
  /** Few-shot examples when `--accuracy-n-shots` is not given. */
  readonly defaultNShots: number;
  /** Chain of thought when neither `--accuracy-enable-cot` nor `--accuracy-no-enable-cot` is given. */
  readonly defaultEnableCot: boolean;
  /** System prompt when `--accuracy-system-prompt` is not given; none when absent. */
  readonly defaultSystemPrompt?: string;
  /** The Hugging Face dataset repositories it reads, for messages and docs. */
  readonly repositories: readonly string[];
  /**
   * Its problems, in AIPerf's order.
   * @throws {DatasetError} when its data is not on this machine or is malformed, or an option value is refused
   * (an unknown task, too many shots), saying why.
   */
  load(ctx: BenchmarkLoadContext): Promise<BenchmarkProblem[]>;
}

/** Python's `str(value)` for the scalar column values datasets hold. */
export function pyStr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  return String(value);
}

/** The comma-and-space list of names for messages. */
export function nameList(names: readonly string[]): string {
  return names.join(", ");
}
