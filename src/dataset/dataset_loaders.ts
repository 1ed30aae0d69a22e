/**
 * The custom dataset formats infermeter reads (`--custom-dataset-type`), declared once: option choices, `--help`,
 * each format's own options and "unknown format" errors come from here. Each entry is the format's declaration
 * (`dataset_formats.ts`) and the import of its reader, loaded only when a dataset file is read; the imports are
 * literal, so `deno compile` and the bundler include every reader. Detection asks every reader and needs exactly one
 * to accept, so the order here is only the order of `--help`.
 */
import { Registry } from "../base/registry.ts";
import type { DatasetFormat, DatasetLoader } from "./dataset_loader.ts";
import {
  BAILIAN_TRACE_FORMAT,
  BASETEN_TRACE_FORMAT,
  BURST_GPT_TRACE_FORMAT,
  DAG_JSONL_FORMAT,
  INPUTS_JSON_FORMAT,
  MOONCAKE_TRACE_FORMAT,
  MULTI_TURN_FORMAT,
  RANDOM_POOL_FORMAT,
  RAW_PAYLOAD_FORMAT,
  RUN_BUNDLE_FORMAT,
  SAGEMAKER_DATA_CAPTURE_FORMAT,
  SINGLE_TURN_FORMAT,
  SPEED_BENCH_SPECS,
  TRACELAB_FORMAT,
  WEKA_TRACE_FORMAT,
} from "./dataset_formats.ts";

/** A registered format: its declaration, and its reader imported on use. */
export interface RegisteredDatasetFormat extends DatasetFormat {
  /** The format's reader (the same object on every call). */
  loader(): Promise<DatasetLoader>;
}

const FORMAT_LIST = [
  { ...SINGLE_TURN_FORMAT, loader: async () => (await import("./single_turn_loader.ts")).singleTurnLoader },
  { ...MULTI_TURN_FORMAT, loader: async () => (await import("./multi_turn_loader.ts")).multiTurnLoader },
  { ...RANDOM_POOL_FORMAT, loader: async () => (await import("./random_pool_loader.ts")).randomPoolLoader },
  { ...MOONCAKE_TRACE_FORMAT, loader: async () => (await import("./mooncake_trace_loader.ts")).mooncakeTraceLoader },
  { ...BAILIAN_TRACE_FORMAT, loader: async () => (await import("./bailian_trace_loader.ts")).bailianTraceLoader },
  { ...BURST_GPT_TRACE_FORMAT, loader: async () => (await import("./burst_gpt_loader.ts")).burstGptLoader },
  { ...BASETEN_TRACE_FORMAT, loader: async () => (await import("./baseten_trace_loader.ts")).basetenTraceLoader },
  { ...RAW_PAYLOAD_FORMAT, loader: async () => (await import("./raw_payload_loader.ts")).rawPayloadLoader },
  { ...INPUTS_JSON_FORMAT, loader: async () => (await import("./inputs_json_loader.ts")).inputsJsonLoader },
  { ...DAG_JSONL_FORMAT, loader: async () => (await import("./dag_jsonl_loader.ts")).dagJsonlLoader },
  { ...RUN_BUNDLE_FORMAT, loader: async () => (await import("./run_bundle_loader.ts")).runBundleLoader },
  {
    ...SAGEMAKER_DATA_CAPTURE_FORMAT,
    loader: async () => (await import("./sagemaker_capture_loader.ts")).sageMakerCaptureLoader,
  },
  { ...WEKA_TRACE_FORMAT, loader: async () => (await import("./weka_trace_loader.ts")).wekaTraceLoader },
  { ...TRACELAB_FORMAT, loader: async () => (await import("./tracelab_loader.ts")).traceLabLoader },
  ...SPEED_BENCH_SPECS.map((spec, i) => ({
    name: spec.name,
    description: spec.description,
    loader: async () => (await import("./speed_bench_loader.ts")).SPEED_BENCH_LOADERS[i],
  })),
] as const;

/** The option declarations of the registered formats, with their literal types (for the configuration type). */
export type DatasetLoaderOptionSpec = Extract<(typeof FORMAT_LIST)[number], { readonly options: unknown }>[
  "options"
][number];

/** Every registered format's own options, in registry order. */
export const DATASET_LOADER_OPTIONS: readonly DatasetLoaderOptionSpec[] = FORMAT_LIST.flatMap((
  format,
): readonly DatasetLoaderOptionSpec[] =>
  ("options" in format ? format.options ?? [] : []) as readonly DatasetLoaderOptionSpec[]
);

export const DATASET_LOADERS: Registry<RegisteredDatasetFormat> = new Registry("dataset type", FORMAT_LIST);

/** Every registered format's reader, in registry order (to detect a file's format, or read it). */
export function datasetLoaders(): Promise<DatasetLoader[]> {
  return Promise.all(DATASET_LOADERS.entries().map((format) => format.loader()));
}
