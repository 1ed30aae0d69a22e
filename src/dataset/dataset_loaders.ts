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

const LOADER_LIST = [
  singleTurnLoader,
  multiTurnLoader,
  randomPoolLoader,
  mooncakeTraceLoader,
  bailianTraceLoader,
  burstGptLoader,
  rawPayloadLoader,
  inputsJsonLoader,
] as const;

/** The option declarations of the registered formats, with their literal types (for the configuration type). */
export type DatasetLoaderOptionSpec = Extract<(typeof LOADER_LIST)[number], { readonly options: unknown }>[
  "options"
][number];

/** Every registered format's own options, in registry order. */
export const DATASET_LOADER_OPTIONS: readonly DatasetLoaderOptionSpec[] = LOADER_LIST.flatMap((
  loader,
): readonly DatasetLoaderOptionSpec[] => (loader.options ?? []) as readonly DatasetLoaderOptionSpec[]);

export const DATASET_LOADERS: Registry<DatasetLoader> = new Registry("dataset type", LOADER_LIST, {
  unsupported: {
    baseten_trace: "Baseten traces are Parquet/Arrow files, which infermeter does not read; export the rows to " +
      "mooncake_trace JSONL (timestamp, input_length or text_input, output_length, session_id) and use that",
    dag_jsonl: "agent DAG conversations (forks and spawns) are not replayed yet; flatten each path into a " +
      "multi_turn line to replay it",
    sagemaker_data_capture: "SageMaker capture files are not read yet; put each captured request body on a line " +
      "of a raw_payload file (with --fixed-schedule timing, use mooncake_trace lines with a payload and timestamp)",
    weka_trace: "Weka agent traces (sub-agent topology) are not replayed yet; use mooncake_trace with hash_ids",
  },
});
