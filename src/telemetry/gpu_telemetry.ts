/**
 * Per-GPU telemetry from DCGM-exporter scrapes over the profiling window: power, utilization, memory, temperature
 * and clocks as gauge statistics, energy as the increase of the `DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION` counter
 * (mJ → J), and the run's energy efficiency.
 *
 * Energy: Σ over GPUs of the energy counter's increase (resets handled as for counters); a GPU without the counter
 * contributes its average power × the window's length instead. Output tokens per joule = total output tokens /
 * energy (J); energy per output token = energy / tokens (mJ); average GPU power = energy / window seconds.
 */
import type { Labels } from "./prometheus_text.ts";
import {
  type EndpointScrapes,
  type EndpointWindowStore,
  summarizeWindow,
  type Window,
  type WindowSeries,
} from "./window_summary.ts";

/** DCGM fields reported, with our name, unit and a scale from DCGM's unit. */
const FIELDS: readonly { dcgm: string; name: string; unit: string; header: string; scale?: number }[] = [
  { dcgm: "DCGM_FI_DEV_POWER_USAGE", name: "gpu_power_usage", unit: "W", header: "Power Usage" },
  { dcgm: "DCGM_FI_DEV_GPU_UTIL", name: "gpu_utilization", unit: "%", header: "GPU Utilization" },
  { dcgm: "DCGM_FI_DEV_MEM_COPY_UTIL", name: "memory_copy_utilization", unit: "%", header: "Memory Copy Util" },
  { dcgm: "DCGM_FI_DEV_FB_USED", name: "gpu_memory_used", unit: "GB", header: "Memory Used", scale: 1.048576 / 1000 },
  { dcgm: "DCGM_FI_DEV_FB_FREE", name: "gpu_memory_free", unit: "GB", header: "Memory Free", scale: 1.048576 / 1000 },
  { dcgm: "DCGM_FI_DEV_GPU_TEMP", name: "gpu_temperature", unit: "°C", header: "Temperature" },
  { dcgm: "DCGM_FI_DEV_SM_CLOCK", name: "sm_clock", unit: "MHz", header: "SM Clock" },
];
const ENERGY = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION";

export interface GpuFieldStats {
  readonly header: string;
  readonly unit: string;
  readonly avg: number;
  readonly min: number;
  readonly max: number;
  readonly std: number;
  readonly p50: number;
  readonly p99: number;
}

export interface GpuSummary {
  readonly endpointUrl: string;
  readonly gpuIndex: string;
  readonly gpuUuid?: string;
  readonly gpuModel?: string;
  readonly hostname?: string;
  readonly metrics: Readonly<Record<string, GpuFieldStats>>;
  /** Energy used over the window, J (from the counter, else average power × window). */
  readonly energyJ?: number;
  readonly energyFromCounter: boolean;
}

export interface GpuEfficiency {
  readonly totalGpuEnergyJ: number;
  readonly averageGpuPowerW: number;
  readonly outputTokensPerJoule?: number;
  readonly energyPerOutputTokenMj?: number;
}

/** One summary per GPU (endpoint × `gpu` label), in endpoint then index order. */
export function summarizeGpus(
  endpoints: readonly (EndpointScrapes | EndpointWindowStore)[],
  window: Window,
): GpuSummary[] {
  const metrics = summarizeWindow(endpoints, window);
  const byGpu = new Map<
    string,
    { url: string; labels: Labels; fields: Record<string, GpuFieldStats>; energy?: number }
  >();
  const gpuOf = (s: WindowSeries) => {
    const labels = s.labels ?? {};
    const index = labels.gpu ?? labels.GPU_I_ID ?? "0";
    const key = `${s.endpointUrl}\u0000${index}`;
    let g = byGpu.get(key);
    if (g === undefined) {
      g = { url: s.endpointUrl, labels, fields: {} };
      byGpu.set(key, g);
    }
    return g;
  };
  for (const field of FIELDS) {
    const m = metrics.find((x) => x.name === field.dcgm);
    for (const s of m?.series ?? []) {
      const k = field.scale ?? 1;
      gpuOf(s).fields[field.name] = {
        header: field.header,
        unit: field.unit,
        avg: s.stats.avg * k,
        min: s.stats.min * k,
        max: s.stats.max * k,
        std: s.stats.std * k,
        p50: s.stats.p50 * k,
        p99: s.stats.p99 * k,
      };
    }
  }
  // DCGM-exporter declares the energy field a counter (mJ since driver load).
  const energy = metrics.find((x) => x.name === ENERGY && x.type === "counter");
  for (const s of energy?.series ?? []) gpuOf(s).energy = s.stats.total / 1000;
  const seconds = (window.endMs - window.startMs) / 1000;
  return [...byGpu.values()].map((g) => {
    const power = g.fields.gpu_power_usage;
    const fallback = power !== undefined && seconds > 0 ? power.avg * seconds : undefined;
    return {
      endpointUrl: g.url,
      gpuIndex: g.labels.gpu ?? "0",
      gpuUuid: g.labels.UUID,
      gpuModel: g.labels.modelName,
      hostname: g.labels.Hostname,
      metrics: g.fields,
      energyJ: g.energy ?? fallback,
      energyFromCounter: g.energy !== undefined,
    };
  }).sort((a, b) => a.endpointUrl.localeCompare(b.endpointUrl) || Number(a.gpuIndex) - Number(b.gpuIndex));
}

/** Energy totals and tokens per joule; undefined when no GPU reported energy or power. */
export function gpuEfficiency(
  gpus: readonly GpuSummary[],
  window: Window,
  outputTokens: number | undefined,
): GpuEfficiency | undefined {
  const withEnergy = gpus.filter((g) => g.energyJ !== undefined);
  if (withEnergy.length === 0) return undefined;
  const energy = withEnergy.reduce((a, g) => a + g.energyJ!, 0);
  const seconds = (window.endMs - window.startMs) / 1000;
  return {
    totalGpuEnergyJ: energy,
    averageGpuPowerW: seconds > 0 ? energy / seconds : 0,
    ...(outputTokens !== undefined && energy > 0
      ? {
        outputTokensPerJoule: outputTokens / energy,
        energyPerOutputTokenMj: outputTokens > 0 ? energy * 1000 / outputTokens : undefined,
      }
      : {}),
  };
}
