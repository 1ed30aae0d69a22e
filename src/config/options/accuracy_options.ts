/**
 * `profile` options of the "Accuracy" group: an accuracy benchmark run alongside the performance measurement, as
 * AIPerf 0.13 runs it (`src/dataset/accuracy/`). `--accuracy-benchmark` turns it on; every other accuracy option
 * needs it (AIPerf refuses them alone rather than ignore them).
 */
import { ACCURACY_BENCHMARKS } from "../../dataset/accuracy/accuracy_benchmarks.ts";
import { ACCURACY_GRADERS } from "../../dataset/accuracy/accuracy_graders.ts";
import { optionGroup } from "./option_group.ts";

const NEEDS_BENCHMARK = [{ key: "accuracyBenchmark", why: "applies only to an accuracy benchmark" }] as const;

export const ACCURACY_OPTIONS = optionGroup("Accuracy", [
  {
    key: "accuracyBenchmark",
    type: "enum",
    choices: ACCURACY_BENCHMARKS,
    flags: ["--accuracy-benchmark"],
    metavar: "<benchmark>",
    yaml: ["benchmark.accuracy.benchmark"],
    conflictsWith: [
      { key: "inputFile", why: "sends the benchmark's own problems" },
      { key: "publicDataset", why: "sends the benchmark's own problems" },
      { key: "fixedSchedule", why: "sends the benchmark's problems in order, not on a schedule" },
    ],
    needs: [{
      key: "datasetSamplingStrategy",
      value: "sequential",
      why: "sends the benchmark's problems in order (the n-th request asks the n-th problem)",
      whenGiven: true,
    }],
    help: "Accuracy benchmark to run alongside the performance measurement: its problems are the prompts (read from " +
      "a local copy of its dataset; never downloaded), each answer is graded, and accuracy_results.csv, " +
      "accuracy_export.jsonl and a console table give per-task and overall accuracy. aime is the legacy combined " +
      "set; prefer aime24 or aime25.",
  },
  {
    key: "accuracyTasks",
    type: "list",
    items: "text",
    repeatable: true,
    flags: ["--accuracy-tasks"],
    metavar: "<tasks>",
    yaml: ["benchmark.accuracy.tasks"],
    requires: NEEDS_BENCHMARK,
    help: "Tasks or subtasks of the benchmark to evaluate (MMLU subjects, MMLU-Pro categories, HellaSwag activities, " +
      "BBH subtasks), comma-separated or repeated; all when not given.",
  },
  {
    key: "accuracyNShots",
    type: "int",
    min: 0,
    max: 32,
    flags: ["--accuracy-n-shots"],
    metavar: "<int>",
    yaml: ["benchmark.accuracy.n_shots"],
    requires: NEEDS_BENCHMARK,
    defaultDescription: "the benchmark's (MMLU 5, AIME 8, HellaSwag 10, BBH 3, others 0)",
    help: "Few-shot examples in each prompt; 0 = zero-shot.",
  },
  {
    key: "accuracyEnableCot",
    type: "bool",
    default: false,
    flags: ["--accuracy-enable-cot"],
    negatedFlags: ["--accuracy-no-enable-cot"],
    yaml: ["benchmark.accuracy.enable_cot"],
    requires: NEEDS_BENCHMARK,
    defaultDescription: "the benchmark's (on for AIME, MMLU-Pro and BBH)",
    help: "Chain-of-thought prompting: the prompt asks for reasoning before the answer.",
  },
  {
    key: "accuracyGrader",
    type: "enum",
    choices: ACCURACY_GRADERS,
    flags: ["--accuracy-grader"],
    metavar: "<grader>",
    yaml: ["benchmark.accuracy.grader"],
    requires: NEEDS_BENCHMARK,
    defaultDescription: "the benchmark's",
    help: "Grader of the answers instead of the benchmark's own.",
  },
  {
    key: "accuracySystemPrompt",
    type: "string",
    multiline: true,
    flags: ["--accuracy-system-prompt"],
    metavar: "<text>",
    yaml: ["benchmark.accuracy.system_prompt"],
    requires: NEEDS_BENCHMARK,
    defaultDescription: "the benchmark's (AIME asks for the answer in \\boxed{}; others none)",
    help: "System prompt of every accuracy request instead of the benchmark's.",
  },
  {
    key: "accuracyVerbose",
    type: "bool",
    default: false,
    flags: ["--accuracy-verbose"],
    yaml: ["benchmark.accuracy.verbose"],
    requires: NEEDS_BENCHMARK,
    help: "Log each graded answer: verdict, the grader's reason, the extracted answer and the start of the response.",
  },
]);
