/**
 * The dataset of an accuracy run (`--accuracy-benchmark`), built as AIPerf 0.13's `AccuracyDatasetLoader` builds it:
 * one single-turn session per problem, in the benchmark's order (sent sequentially, so the n-th request asks the
 * n mod N-th problem), its chat messages with the system prompt first (`--accuracy-system-prompt`, else the
 * benchmark's own), the flat prompt (after the system prompt and a blank line) for text-completion APIs, `max_tokens`
 * from the benchmark and its stop sequences. The gold and task of each session are kept beside the dataset for the
 * graders (`AccuracyGold`), never sent.
 */
import type { Conversation, Dataset } from "../conversation.ts";
import { DatasetError } from "../dataset_error.ts";
import type { AccuracyBenchmark } from "./accuracy_benchmark.ts";
import { ACCURACY_BENCHMARKS } from "./accuracy_benchmarks.ts";
import { ACCURACY_GRADERS } from "./accuracy_graders.ts";
import { type BenchmarkSource, localBenchmarkSource } from "./benchmark_source.ts";
import type { AccuracyGrader } from "./graders/accuracy_grader.ts";
import type { AccuracyGold } from "./accuracy_gold.ts";

/** `max_tokens` of a problem whose benchmark gives none (AIPerf's `DEFAULT_GENERATION_SIZE`). */
const DEFAULT_GENERATION_SIZE = 100;

/** The accuracy options as given (undefined = the benchmark's default). */
export interface AccuracyOptions {
  readonly benchmark: string;
  readonly tasks?: readonly string[];
  readonly nShots?: number;
  readonly enableCot?: boolean;
  readonly grader?: string;
  readonly systemPrompt?: string;
  readonly verbose: boolean;
  /**
   * The endpoint takes chat messages as written (chat): each session carries its messages, else only the flat prompt
   * (text completions), as AIPerf sends `raw_messages` or the text by endpoint. @default true
   */
  readonly chatMessages?: boolean;
  /** `--extra-inputs`: without `temperature: 0` a notice says answers are sampled (AIPerf's warning). */
  readonly extraInputs?: Readonly<Record<string, unknown>>;
}

/** The dataset of an accuracy run and its gold. */
export interface AccuracyDataset extends Dataset {
  readonly accuracy: AccuracyGold;
}

export interface AccuracyLoadContext {
  /** @default the local copies (`benchmark_source.ts`) */
  readonly source?: BenchmarkSource;
  readonly env?: (name: string) => string | undefined;
  readonly info?: (message: string) => void;
  /** Where the warning about sampling goes. @default nowhere */
  readonly warn?: (message: string) => void;
}

/** The benchmark and grader named by `o`, checked. */
export async function accuracySetup(
  o: AccuracyOptions,
): Promise<{ benchmark: AccuracyBenchmark; grader: AccuracyGrader }> {
  const benchmark = await ACCURACY_BENCHMARKS.get(o.benchmark).benchmark();
  const grader = await ACCURACY_GRADERS.get(o.grader ?? benchmark.defaultGrader).grader();
  return { benchmark, grader };
}

/**
 * Loads the benchmark's problems into sessions.
 * @throws {DatasetError} when the data is not on this machine, an option value is refused, or there are no problems.
 */
export async function loadAccuracyDataset(o: AccuracyOptions, ctx: AccuracyLoadContext = {}): Promise<AccuracyDataset> {
  const { benchmark, grader } = await accuracySetup(o);
  const env = ctx.env ?? ((name: string) => Deno.env.get(name));
  const unavailable = await grader.unavailable?.();
  if (unavailable !== undefined) {
    throw new DatasetError(`--accuracy-grader ${grader.name}`, undefined, `cannot run on this machine: ${unavailable}`);
  }
  const temperature = Number(o.extraInputs?.temperature);
  if (!(o.extraInputs !== undefined && "temperature" in o.extraInputs && temperature === 0)) {
    ctx.warn?.(
      "Running accuracy benchmark without temperature=0 in --extra-inputs. Most LLM servers default to " +
        "temperature=1.0, introducing random sampling and run-to-run variance. For reproducible results matching " +
        `lighteval, add: --extra-inputs '{"temperature": 0}'`,
    );
  }
  const nShots = o.nShots ?? benchmark.defaultNShots;
  const enableCot = o.enableCot ?? benchmark.defaultEnableCot;
  const problems = await benchmark.load({
    tasks: o.tasks,
    nShots,
    enableCot,
    source: ctx.source ?? localBenchmarkSource(`--accuracy-benchmark ${benchmark.name}`, env),
    env,
    info: ctx.info ?? (() => {}),
  });
  if (problems.length === 0) {
    throw new DatasetError(
      `--accuracy-benchmark ${benchmark.name}`,
      undefined,
      `has no problem for tasks=${o.tasks === undefined ? "all" : o.tasks.join(",")}, n_shots=${nShots}; check ` +
        "that --accuracy-tasks names a task of the benchmark, or leave it out to evaluate every task",
    );
  }
  const system = o.systemPrompt ?? benchmark.defaultSystemPrompt;
  const gold = new Map<string, { groundTruth: string; task: string }>();
  const conversations: Conversation[] = problems.map((problem, i) => {
    const id = `session_${String(i).padStart(6, "0")}`;
    gold.set(id, { groundTruth: problem.groundTruth, task: problem.task });
    const messages = [
      ...(system ? [{ role: "system", content: system }] : []),
      ...(problem.messages ?? [{ role: "user", content: problem.prompt }]),
    ];
    const stop = problem.stop !== undefined && problem.stop.length > 0 ? { stop: [...problem.stop] } : undefined;
    return {
      id,
      turns: [{
        texts: [system ? `${system}\n\n${problem.prompt}` : problem.prompt],
        ...(o.chatMessages === false ? {} : { messages: messages.map((m) => ({ role: m.role, content: m.content })) }),
        maxTokens: problem.generationSize ?? DEFAULT_GENERATION_SIZE,
        ...(stop === undefined ? {} : { extra: stop }),
      }],
    };
  });
  const tasks = new Set(problems.map((p) => p.task)).size;
  return {
    conversations,
    defaultSampling: "sequential",
    source: "file",
    format: `accuracy:${benchmark.name}`,
    description: `accuracy benchmark ${benchmark.name}: ${problems.length} problems in ${tasks} task` +
      `${tasks === 1 ? "" : "s"}, ${nShots}-shot${enableCot ? ", chain of thought" : ""}, graded by ${grader.name}`,
    accuracy: { benchmark: benchmark.name, grader, verbose: o.verbose, problems: gold },
  };
}
