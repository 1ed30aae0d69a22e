/**
 * The custom dataset formats infermeter reads (`--custom-dataset-type`), declared once: option choices, `--help`,
 * each format's own options and "unknown format" errors come from here. Detection asks every one and needs exactly one to accept, so the
 * order here is only the order of `--help`.
 */
import { Registry } from "../base/registry.ts";
import type { DatasetLoader } from "./dataset_loader.ts";
import { singleTurnLoader } from "./single_turn_loader.ts";
import { multiTurnLoader } from "./multi_turn_loader.ts";
import { randomPoolLoader } from "./random_pool_loader.ts";
import { mooncakeTraceLoader } from "./mooncake_trace_loader.ts";
import { rawPayloadLoader } from "./raw_payload_loader.ts";
import { inputsJsonLoader } from "./inputs_json_loader.ts";
import { bailianTraceLoader } from "./bailian_trace_loader.ts";
import { burstGptLoader } from "./burst_gpt_loader.ts";
import { runBundleLoader } from "./run_bundle_loader.ts";
import { SPEED_BENCH_LOADERS } from "./speed_bench_loader.ts";
import { sageMakerCaptureLoader } from "./sagemaker_capture_loader.ts";
import { basetenTraceLoader } from "./baseten_trace_loader.ts";
import { dagJsonlLoader } from "./dag_jsonl_loader.ts";
import { wekaTraceLoader } from "./weka_trace_loader.ts";
import { traceLabLoader } from "./tracelab_loader.ts";

const LOADER_LIST = [
  singleTurnLoader,
  multiTurnLoader,
  randomPoolLoader,
  mooncakeTraceLoader,
  bailianTraceLoader,
  burstGptLoader,
  basetenTraceLoader,
  rawPayloadLoader,
  inputsJsonLoader,
  dagJsonlLoader,
  runBundleLoader,
  sageMakerCaptureLoader,
  wekaTraceLoader,
  traceLabLoader,
  ...SPEED_BENCH_LOADERS,
] as const;

/** The option declarations of the registered formats, with their literal types (for the configuration type). */
export type DatasetLoaderOptionSpec = Extract<(typeof LOADER_LIST)[number], { readonly options: unknown }>[
  "options"
][number];

/** Every registered format's own options, in registry order. */
export const DATASET_LOADER_OPTIONS: readonly DatasetLoaderOptionSpec[] = LOADER_LIST.flatMap((
  loader,
): readonly DatasetLoaderOptionSpec[] => (loader.options ?? []) as readonly DatasetLoaderOptionSpec[]);

export const DATASET_LOADERS: Registry<DatasetLoader> = new Registry("dataset type", LOADER_LIST);
