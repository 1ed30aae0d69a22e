/**
 * The options of `infermeter calibrate`, declared once: its parser and `--help` come from here. Words after `--` are
 * passed on to every `profile` run. The hidden options are the internal modes calibrate starts itself in (the
 * reference server, the floor reader).
 */
import { type Command, defineCommand } from "../config/command_spec.ts";
import type { OptionSpec } from "../base/option_spec.ts";

const CALIBRATE_OPTIONS = [
  {
    key: "streams",
    type: "list",
    items: "text",
    default: ["16", "256"],
    flags: ["--streams"],
    group: "Options",
    metavar: "<list>",
    help: "Concurrent streams per level, comma-separated.",
  },
  {
    key: "ttft",
    type: "float",
    default: 50,
    min: 0,
    flags: ["--ttft"],
    group: "Options",
    metavar: "<ms>",
    help: "Server time to first token.",
  },
  {
    key: "itl",
    type: "float",
    default: 13,
    min: 0,
    flags: ["--itl"],
    group: "Options",
    metavar: "<ms>",
    help: "Server time between tokens (13 ms × 256 streams ≈ 19.7k events/s).",
  },
  {
    key: "tokens",
    type: "int",
    default: 100,
    min: 2,
    flags: ["--tokens"],
    group: "Options",
    metavar: "<n>",
    help: "Tokens per response.",
  },
  {
    key: "duration",
    type: "float",
    default: 8,
    min: 0.5,
    flags: ["--duration"],
    group: "Options",
    metavar: "<s>",
    help: "Seconds per level.",
  },
  {
    key: "workers",
    type: "int",
    min: 1,
    allowAuto: true,
    flags: ["--workers"],
    group: "Options",
    metavar: "<n|auto>",
    defaultDescription: "auto: the profile command's choice from the client's cores and the load",
    help: "Engine shards for the profile runs (each pinned to a core of the client's set when it has enough).",
  },
  {
    key: "serverProcesses",
    type: "int",
    min: 1,
    max: 256,
    flags: ["--reference-processes"],
    group: "Options",
    metavar: "<n>",
    defaultDescription: "a quarter of the cores, at least one",
    help: "Reference server processes, one per core (each its own port; the clients round-robin over them).",
  },
  {
    key: "cpuDmaLatency",
    type: "int",
    min: 0,
    flags: ["--cpu-dma-latency"],
    group: "Options",
    metavar: "<us>",
    help: "Hold /dev/cpu_dma_latency at this many µs through every level (Linux, root; 0: idle cores poll).",
  },
  {
    key: "json",
    type: "bool",
    default: false,
    flags: ["--json"],
    group: "Options",
    help: "Print the report as JSON on stdout.",
  },
  {
    key: "warmup",
    type: "bool",
    default: true,
    flags: ["--warmup"],
    group: "Options",
    help: "Run one warmup request per stream before each level, excluded from the figures; --no-warmup measures " +
      "from a cold start.",
  },
  // Internal modes: calibrate starts itself as the reference server and as the floor reader.
  {
    key: "serve",
    type: "bool",
    default: false,
    flags: ["--serve"],
    group: "Options",
    hidden: true,
    help: "Run as the reference server.",
  },
  {
    key: "port",
    type: "int",
    default: 0,
    min: 0,
    flags: ["--port"],
    group: "Options",
    hidden: true,
    help: "Port of the reference server (0: a free one).",
  },
  {
    key: "floorClient",
    type: "string",
    flags: ["--floor-client"],
    group: "Options",
    hidden: true,
    help: "Run as the floor reader against this URL.",
  },
] as const satisfies readonly OptionSpec[];

/** `infermeter calibrate`. */
export const CALIBRATE_COMMAND: Command<typeof CALIBRATE_OPTIONS> = defineCommand({
  name: "calibrate",
  usage: "[options] [-- profile options]",
  description: "Measure the timing error the client adds (TTFT, ITL, request latency) against a paced server.\n" +
    "Options after `--` are passed to every `infermeter profile` run (e.g. -- --use-server-token-count).",
  options: CALIBRATE_OPTIONS,
  afterTerminator: "passOn",
});
