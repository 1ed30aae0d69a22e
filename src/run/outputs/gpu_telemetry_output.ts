/** The GPU telemetry table (the figures themselves go into the JSON export's `telemetry_data`). */
import type { Output } from "./output.ts";

export const GPU_TELEMETRY_OUTPUT: Output = {
  name: "gpu_telemetry",
  description: "the GPU telemetry console table; its figures are in the JSON export's telemetry_data",
  enabled: (config) => !config.noGpuTelemetry,
  files: () => [],
  finish: () => Promise.resolve(),
  console: (ctx) => ctx.results?.telemetry?.gpuTable,
};
