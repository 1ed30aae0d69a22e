/**
 * The validated, frozen configuration of one `profile` run. Built only by the option table
 * (`option_table.ts`) from defaults < YAML < env < flags; everything downstream reads this and nothing else.
 */
import type { EndpointType } from "../endpoints/endpoint_adapter.ts";
import type { SamplingStrategy } from "../dataset/conversation.ts";
import type { LogLevel } from "../ui/logger.ts";
import type { GoodputSlo } from "../metrics/goodput.ts";

export type { GoodputSlo, LogLevel };

export type ArrivalPattern = "constant" | "poisson" | "gamma" | "concurrency_burst";
export type ConnectionReuseStrategy = "pooled" | "never" | "sticky-user-sessions";
export type UiType = "none" | "simple" | "dashboard";
export type ExportLevel = "summary" | "records" | "raw";
export type CustomDatasetType = "single_turn";

export interface ProfileConfig {
  // Endpoint
  readonly modelNames: readonly string[];
  readonly modelSelectionStrategy: "round_robin" | "random";
  readonly endpointType: EndpointType;
  /** `--endpoint` / `--custom-endpoint`; undefined = the endpoint type's default path. */
  readonly customEndpoint?: string;
  readonly streaming: boolean;
  /** Normalized base URLs, scheme always present (`http://` prepended when missing). */
  readonly urls: readonly string[];
  readonly requestTimeoutSeconds: number;
  /** Secret: never logged or exported. */
  readonly apiKey?: string;
  readonly useLegacyMaxTokens: boolean;
  readonly useServerTokenCount: boolean;
  readonly connectionReuseStrategy: ConnectionReuseStrategy;

  // Tokenizer
  /** `builtin` (default, offline o200k_base) or a local tokenizer.json / model directory. */
  readonly tokenizer: string;

  // Input
  readonly extraInputs: Readonly<Record<string, unknown>>;
  /** `-H` headers, in order. Values may be secrets (redacted in the command line). */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly inputFile?: string;
  readonly customDatasetType?: CustomDatasetType;
  readonly datasetSamplingStrategy?: SamplingStrategy;
  /** Undefined = a seed drawn from entropy (and recorded in `run_info`). */
  readonly randomSeed?: number;
  readonly numDatasetEntries: number;
  /** `-f/--config`: the YAML file the run was configured from, as given (recorded for provenance). */
  readonly configFile?: string;

  // Input / output sequence length
  readonly syntheticInputTokensMean: number;
  readonly syntheticInputTokensStddev: number;
  /** Undefined = no max tokens sent (server decides). */
  readonly outputTokensMean?: number;
  readonly outputTokensStddev: number;

  // Load generator
  /** Undefined = 1 when no request rate is set; with a rate, undefined = no cap. */
  readonly concurrency?: number;
  readonly requestRate?: number;
  readonly arrivalPattern: ArrivalPattern;
  /** Gamma shape (vLLM `--burstiness`); setting it alone promotes the pattern to gamma. */
  readonly arrivalSmoothness?: number;
  /** Undefined = AIPerf default `max(10, 2·concurrency)` unless a duration is set. */
  readonly requestCount?: number;
  readonly benchmarkDuration?: number;
  readonly benchmarkGracePeriod: number;
  /** Seconds over which the concurrency grows from 1 to `concurrency` (closed loop). */
  readonly concurrencyRampDuration?: number;
  readonly warmupRequestCount?: number;
  /** Abort (non-zero exit) when failed/total exceeds this after max(concurrency, 10) records. */
  readonly failedRequestThreshold?: number;

  // Goodput
  readonly goodput: readonly GoodputSlo[];

  // Output
  readonly artifactDir: string;
  /** True when `--artifact-dir` was given explicitly (then no per-run subdirectory is added). */
  readonly artifactDirExplicit: boolean;
  readonly profileExportPrefix?: string;
  readonly exportLevel: ExportLevel;

  // UI / service
  readonly ui: UiType;
  readonly logLevel: LogLevel;
  /** `--workers`: engine shards (Deno Workers). Undefined = chosen from the core count and the load. */
  readonly workers?: number;
  /**
   * `--cpu-dma-latency`: µs within which idle CPUs must be able to wake, held through `/dev/cpu_dma_latency`
   * for the run (0: they poll). Undefined = the machine's own setting.
   */
  readonly cpuDmaLatency?: number;
}
