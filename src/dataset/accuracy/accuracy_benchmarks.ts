/** Every accuracy benchmark (`--accuracy-benchmark`), in AIPerf 0.13's order: each declared, and imported on use. */
import { Registry, type RegistryEntry } from "../../base/registry.ts";
import type { AccuracyBenchmark } from "./accuracy_benchmark.ts";
import {
  AIME24_BENCHMARK_DECLARATION,
  AIME25_BENCHMARK_DECLARATION,
  AIME_BENCHMARK_DECLARATION,
  BIGBENCH_BENCHMARK_DECLARATION,
  GPQA_DIAMOND_BENCHMARK_DECLARATION,
  GSM8K_BENCHMARK_DECLARATION,
  HELLASWAG_BENCHMARK_DECLARATION,
  LCB_CODEGENERATION_BENCHMARK_DECLARATION,
  MATH_500_BENCHMARK_DECLARATION,
  MMLU_BENCHMARK_DECLARATION,
  MMLU_PRO_BENCHMARK_DECLARATION,
} from "./accuracy_declarations.ts";

/** A registered benchmark: its declaration, and the benchmark itself imported on use. */
export interface RegisteredAccuracyBenchmark extends RegistryEntry {
  /** The benchmark (the same object on every call). */
  benchmark(): Promise<AccuracyBenchmark>;
}

export const ACCURACY_BENCHMARKS: Registry<RegisteredAccuracyBenchmark> = new Registry<RegisteredAccuracyBenchmark>(
  "accuracy benchmark",
  [
    {
      ...MMLU_BENCHMARK_DECLARATION,
      benchmark: async () => (await import("./benchmarks/mmlu.ts")).MMLU_BENCHMARK,
    },
    {
      ...MMLU_PRO_BENCHMARK_DECLARATION,
      benchmark: async () => (await import("./benchmarks/mmlu_pro.ts")).MMLU_PRO_BENCHMARK,
    },
    {
      ...AIME_BENCHMARK_DECLARATION,
      benchmark: async () => (await import("./benchmarks/aime.ts")).AIME_BENCHMARK,
    },
    {
      ...HELLASWAG_BENCHMARK_DECLARATION,
      benchmark: async () => (await import("./benchmarks/hellaswag.ts")).HELLASWAG_BENCHMARK,
    },
    {
      ...BIGBENCH_BENCHMARK_DECLARATION,
      benchmark: async () => (await import("./benchmarks/bigbench.ts")).BIGBENCH_BENCHMARK,
    },
    {
      ...AIME24_BENCHMARK_DECLARATION,
      benchmark: async () => (await import("./benchmarks/aime_year.ts")).AIME24_BENCHMARK,
    },
    {
      ...AIME25_BENCHMARK_DECLARATION,
      benchmark: async () => (await import("./benchmarks/aime_year.ts")).AIME25_BENCHMARK,
    },
    {
      ...MATH_500_BENCHMARK_DECLARATION,
      benchmark: async () => (await import("./benchmarks/math_500.ts")).MATH_500_BENCHMARK,
    },
    {
      ...GSM8K_BENCHMARK_DECLARATION,
      benchmark: async () => (await import("./benchmarks/gsm8k.ts")).GSM8K_BENCHMARK,
    },
    {
      ...GPQA_DIAMOND_BENCHMARK_DECLARATION,
      benchmark: async () => (await import("./benchmarks/gpqa_diamond.ts")).GPQA_DIAMOND_BENCHMARK,
    },
    {
      ...LCB_CODEGENERATION_BENCHMARK_DECLARATION,
      benchmark: async () => (await import("./benchmarks/lcb_codegeneration.ts")).LCB_CODEGENERATION_BENCHMARK,
    },
  ],
);
