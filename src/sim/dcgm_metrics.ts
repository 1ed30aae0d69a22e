/**
 * A DCGM-exporter-style endpoint with synthetic GPUs (`serve-sim --dcgm-gpus N`, served at `/dcgm/metrics`), so
 * GPU telemetry can be tested without a GPU. Each GPU's load follows the simulator's requests in flight
 * (saturating at 8): power = 60 W + 290 W × load, utilization = 100 % × load, memory used = 18 GiB + 64 MiB per
 * request; the energy counter (mJ) integrates the power between scrapes, so its increase over a window equals
 * the mean power × the window. Field names, labels and units are DCGM-exporter's.
 */
import { PrometheusWriter } from "../telemetry/prometheus_writer.ts";

const IDLE_W = 60;
const SPAN_W = 290;
const FB_TOTAL_MIB = 81559;

export class DcgmMetrics {
  readonly #gpus: number;
  readonly #load: () => number;
  readonly #now: () => number;
  readonly #energyMj: number[];
  #lastMs: number;
  #lastPowerW: number;

  /** @param inFlight requests in flight now; @param now ms clock (performance.now by default). */
  constructor(gpus: number, inFlight: () => number, now: () => number = () => performance.now()) {
    this.#gpus = gpus;
    this.#load = () => Math.min(1, inFlight() / 8);
    this.#now = now;
    this.#energyMj = Array.from({ length: gpus }, () => 1e9);
    this.#lastMs = now();
    this.#lastPowerW = IDLE_W;
  }

  /** Power now, W (every GPU carries the same share). */
  powerW(): number {
    return IDLE_W + SPAN_W * this.#load();
  }

  render(): string {
    const t = this.#now();
    // Trapezoid between the last scrape's power and now.
    const power = this.powerW();
    const joules = ((this.#lastPowerW + power) / 2) * ((t - this.#lastMs) / 1000);
    for (let i = 0; i < this.#gpus; i++) this.#energyMj[i] += joules * 1000;
    this.#lastMs = t;
    this.#lastPowerW = power;
    const load = this.#load();
    const labels = (i: number) => ({
      gpu: String(i),
      UUID: `GPU-00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
      pci_bus_id: `00000000:${(0x10 + i).toString(16).toUpperCase()}:00.0`,
      device: `nvidia${i}`,
      modelName: "NVIDIA H100 80GB HBM3 (simulated)",
      Hostname: "serve-sim",
    });
    const each = (value: (i: number) => number) =>
      Array.from({ length: this.#gpus }, (_, i) => ({ labels: labels(i), value: value(i) }));
    const used = 18432 + 64 * Math.round(load * 8);
    return new PrometheusWriter()
      .gauge("DCGM_FI_DEV_SM_CLOCK", "SM clock frequency (in MHz).", each(() => 1980))
      .gauge("DCGM_FI_DEV_MEM_CLOCK", "Memory clock frequency (in MHz).", each(() => 2619))
      .gauge("DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).", each(() => Math.round(35 + 30 * load)))
      .gauge("DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).", each(() => power))
      .counter(
        "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
        "Total energy consumption since boot (in mJ).",
        each((i) => Math.round(this.#energyMj[i])),
      )
      .gauge("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", each(() => Math.round(100 * load)))
      .gauge("DCGM_FI_DEV_MEM_COPY_UTIL", "Memory utilization (in %).", each(() => Math.round(40 * load)))
      .gauge("DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB).", each(() => FB_TOTAL_MIB - used))
      .gauge("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", each(() => used))
      .text();
  }
}
