/**
 * Data shared by the `deno task bench` harness (run_bench.ts): scenarios, per-client results, JSON values.
 */

/** The clients measured side by side against one serve-sim instance. */
export type ClientName = "ours" | "wrk" | "aiperf";

export const CLIENT_NAMES: readonly ClientName[] = ["ours", "wrk", "aiperf"];

/** What a scenario is judged on: SSE content events per second, or requests per second. */
export type ScenarioKind = "events" | "requests";

export interface Scenario {
  /** Short id used by `--scenarios`, e.g. `sse-c64`. */
  readonly id: string;
  readonly title: string;
  readonly kind: ScenarioKind;
  readonly streaming: boolean;
  /** Prompt length in tokens (small: the client, not the server's prompt counting, should be measured). */
  readonly isl: number;
  /** Output tokens per response (sent as max_completion_tokens, with ignore_eos so the count is exact). */
  readonly osl: number;
  readonly concurrency: number;
  /**
   * `--endpoint-type` both tools run (default `chat`). Other types than chat run ours against AIPerf only: wrk
   * posts the chat body, and the rows compare CPU per request of each API's whole path.
   */
  readonly endpointType?: string;
}

export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [k: string]: JsonValue };

/** One client's measurement in one scenario. Rates are over the client's own measured window. */
export interface ClientResult {
  readonly client: ClientName;
  readonly status: "ok" | "skipped" | "failed";
  /** Why it was skipped or failed; notes for an ok run. */
  readonly message?: string;
  /** argv as run (after pinning wrappers). */
  readonly command?: readonly string[];
  readonly requestsPerSec?: number;
  /** SSE content events per second; undefined for non-streaming scenarios. */
  readonly eventsPerSec?: number;
  readonly requests?: number;
  readonly errors?: number;
  /** The measured window in seconds (the tool's benchmark duration; wrk: its run). */
  readonly windowSec?: number;
  /** Client CPU (user + system, all processes and threads) inside the window, seconds. */
  readonly windowCpuSec?: number;
  /** Where windowCpuSec comes from. */
  readonly windowCpuSource?: string;
  readonly cpuUsPerEvent?: number;
  readonly cpuUsPerRequest?: number;
  /** Client CPU from spawn to exit (start-up and exports included), seconds. */
  readonly totalCpuSec?: number;
  /** Wall time from spawn to exit, seconds. */
  readonly wallSec?: number;
  /** Peak resident memory: sum over the process tree of each process's high-water mark (VmHWM), MB. */
  readonly peakRssMb?: number;
  /** Largest sum of VmRSS over the process tree seen by polling, MB. */
  readonly peakSampledRssMb?: number;
  /** Processes seen in the client's tree. */
  readonly processes?: number;
  /** serve-sim's CPU use inside the window, percent of one core. */
  readonly serverCpuPercent?: number;
  /** CPU that processes outside the bench took on the client's core inside the window, percent (pinned runs). */
  readonly otherOnClientCorePercent?: number;
  /** The same on the server's core (this harness's own polling not counted). */
  readonly otherOnServerCorePercent?: number;
  readonly exitCode?: number;
  readonly artifactDir?: string;
  readonly extra?: { readonly [k: string]: JsonValue };
}

/** What one sample response of a scenario looks like (counted once per scenario, used for wrk's events/s). */
export interface ResponseShape {
  readonly status: number;
  readonly bytes: number;
  /** `data:` events in the stream, `[DONE]` included. */
  readonly sseEvents: number;
  /** Events whose `choices[0].delta.content` is a non-empty string. */
  readonly contentEvents: number;
}

export interface ScenarioResult {
  readonly scenario: Scenario;
  readonly body: string;
  readonly response?: ResponseShape;
  readonly clients: readonly ClientResult[];
}
