/** `profile` options of the "Workers" group: how the load is spread over engine shards (threads or processes). */
import { optionGroup } from "./option_group.ts";

export const WORKERS_OPTIONS = optionGroup("Workers", [
  {
    key: "workers",
    type: "int",
    min: 1,
    max: 1024,
    allowAuto: true,
    flags: ["--workers-max", "--max-workers", "--workers"],
    metavar: "<int|auto>",
    env: "INFERMETER_WORKERS",
    yaml: ["benchmark.runtime.workers"],
    defaultDescription: "auto: chosen from the free cores and the load (streams, expected events/s)",
    help: "Number of engine shards (each a Deno Worker on its own core driving a share of the load; a process " +
      "of its own when one process's open-file limit cannot hold its connections, see --workers-mode).",
  },
  {
    key: "workersMode",
    type: "enum",
    choices: ["auto", "threads", "processes"],
    default: "auto",
    flags: ["--workers-mode"],
    env: "INFERMETER_WORKERS_MODE",
    yaml: ["benchmark.runtime.workers_mode"],
    help: "Where engine shards run: Workers in this process (threads), child processes running 'infermeter " +
      "shard' whose records are merged exactly (processes), or threads unless the connections exceed what one " +
      "process's open-file limit holds (auto).",
  },
  {
    key: "cpuDmaLatency",
    type: "int",
    min: 0,
    max: 2_000_000_000,
    flags: ["--cpu-dma-latency"],
    metavar: "<us>",
    env: "INFERMETER_CPU_DMA_LATENCY",
    yaml: ["benchmark.runtime.cpu_dma_latency"],
    defaultDescription: "the machine's own setting",
    help: "Linux: hold /dev/cpu_dma_latency at this many µs while the run lasts, so idle cores wake within it " +
      "(0: they poll instead of sleeping). Cuts the wake-up delay in every timestamp at low load; " +
      "machine-wide, needs root, released at exit.",
  },
]);
