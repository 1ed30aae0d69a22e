/** Every accuracy benchmark (`--accuracy-benchmark`), in AIPerf 0.13's order. */
import { Registry } from "../../base/registry.ts";
import type { AccuracyBenchmark } from "./accuracy_benchmark.ts";
import { MMLU_BENCHMARK } from "./benchmarks/mmlu.ts";
import { MMLU_PRO_BENCHMARK } from "./benchmarks/mmlu_pro.ts";
import { AIME_BENCHMARK } from "./benchmarks/aime.ts";
import { HELLASWAG_BENCHMARK } from "./benchmarks/hellaswag.ts";
import { BIGBENCH_BENCHMARK } from "./benchmarks/bigbench.ts";
import { AIME24_BENCHMARK, AIME25_BENCHMARK } from "./benchmarks/aime_year.ts";
import { MATH_500_BENCHMARK } from "./benchmarks/math_500.ts";
import { GSM8K_BENCHMARK } from "./benchmarks/gsm8k.ts";
import { GPQA_DIAMOND_BENCHMARK } from "./benchmarks/gpqa_diamond.ts";
import { LCB_CODEGENERATION_BENCHMARK } from "./benchmarks/lcb_codegeneration.ts";

export const ACCURACY_BENCHMARKS: Registry<AccuracyBenchmark> = new Registry<AccuracyBenchmark>(
  "accuracy benchmark",
  [
    MMLU_BENCHMARK,
    MMLU_PRO_BENCHMARK,
    AIME_BENCHMARK,
    HELLASWAG_BENCHMARK,
    BIGBENCH_BENCHMARK,
    AIME24_BENCHMARK,
    AIME25_BENCHMARK,
    MATH_500_BENCHMARK,
    GSM8K_BENCHMARK,
    GPQA_DIAMOND_BENCHMARK,
    LCB_CODEGENERATION_BENCHMARK,
  ],
);
