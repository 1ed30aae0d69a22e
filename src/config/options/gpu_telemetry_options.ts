/** `profile` options of the "GPU Telemetry" group: GPU metrics from DCGM exporters during the run. */
import { optionGroup } from "./option_group.ts";

export const GPU_TELEMETRY_OPTIONS = optionGroup("GPU Telemetry", [
  {
    key: "gpuTelemetryUrls",
    type: "list",
    items: "url",
    default: [],
    optionalValue: true,
    flags: ["--gpu-telemetry"],
    repeatable: true,
    metavar: "[<urls>]",
    yaml: ["benchmark.gpu_telemetry.urls"],
    help: "DCGM-exporter endpoints to scrape for per-GPU power, utilization, memory and energy; " +
      "http://localhost:9400/metrics and :9401 are tried by default and used when they answer.",
  },
  {
    key: "noGpuTelemetry",
    type: "bool",
    default: false,
    negatable: false,
    flags: ["--no-gpu-telemetry"],
    help: "Do not collect GPU telemetry.",
  },
]);
