/**
 * The custom dataset formats infermeter reads (`--custom-dataset-type`), declared once, in detection order:
 * option choices, `--help` and "unknown format" errors come from here.
 */
import { Registry } from "../base/registry.ts";
import type { DatasetLoader } from "./dataset_loader.ts";
import { singleTurnLoader } from "./single_turn_loader.ts";

const NOT_YET = "this dataset format is planned; use single_turn for now";

export const DATASET_LOADERS: Registry<DatasetLoader> = new Registry("dataset type", [singleTurnLoader], {
  unsupported: Object.fromEntries(
    [
      "multi_turn",
      "random_pool",
      "mooncake_trace",
      "bailian_trace",
      "baseten_trace",
      "burst_gpt_trace",
      "raw_payload",
      "inputs_json",
      "dag_jsonl",
      "sagemaker_data_capture",
      "weka_trace",
    ].map((name) => [name, NOT_YET]),
  ),
});
