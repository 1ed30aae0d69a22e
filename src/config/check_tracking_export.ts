/**
 * The values of the OTel, MLflow and W&B options, read and checked before anything is sent (a bad URL or pair is an
 * input error naming the flag, never a silent export failure after the run), and the readers the exporters use.
 * Secret values are never quoted in a problem.
 */
import { otlpMetricsUrl } from "../export/otlp_metrics.ts";

const STREAM_DOMAINS = ["default", "metrics", "timing", "none"] as const;

/** What `--stream` asks for, as AIPerf reads it: nothing given or `default` is both; `none` wins over the rest. */
export function streamDomains(values: readonly string[] = []): { readonly metrics: boolean; readonly timing: boolean } {
  const domains = values.flatMap((v) => v.split(",")).map((v) => v.trim().toLowerCase()).filter((v) => v !== "");
  if (domains.includes("none")) return { metrics: false, timing: false };
  const all = domains.length === 0 || domains.includes("default");
  return { metrics: all || domains.includes("metrics"), timing: all || domains.includes("timing") };
}

/** `--otel-resource-attributes` pairs (`key=value`, comma-separated or repeated); throws on a malformed one. */
export function resourceAttributes(values: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of values.flatMap((v) => v.split(",")).map((p) => p.trim()).filter((p) => p !== "")) {
    const eq = pair.indexOf("=");
    if (eq < 0) throw new Error(`'${pair}' is not key=value`);
    const key = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    if (key === "" || value === "") throw new Error(`'${pair}' needs a key and a value`);
    out[key] = value;
  }
  return out;
}

/**
 * Headers in OpenTelemetry's `OTEL_EXPORTER_OTLP_HEADERS` form (`name=value,…`, values URL-encoded); throws without
 * quoting the value (it is usually a credential).
 */
export function otlpHeaders(text: string | undefined): [string, string][] {
  if (text === undefined) return [];
  const out: [string, string][] = [];
  for (const [i, pair] of text.split(",").entries()) {
    if (pair.trim() === "") continue;
    const eq = pair.indexOf("=");
    const name = eq < 0 ? "" : pair.slice(0, eq).trim();
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new Error(`entry ${i + 1} is not name=value`);
    let value: string;
    try {
      value = decodeURIComponent(pair.slice(eq + 1).trim());
    } catch {
      throw new Error(`the value of ${name} is not URL-encoded text`);
    }
    out.push([name, value]);
  }
  return out;
}

/** An http(s) URL with a host; throws with the reason. */
export function httpUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new Error("not a URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`${url.protocol} is not http or https`);
  return url;
}

/** The option values this file checks. */
export interface TrackingExportFields {
  readonly otelUrl?: string;
  readonly otelStream?: readonly string[];
  readonly otelResourceAttributes?: readonly string[];
  readonly otelHeaders?: string;
  readonly mlflowTrackingUri?: string;
  readonly mlflowExperiment: string;
  readonly mlflowArtifactGlobs?: readonly string[];
  readonly wandbProject?: string;
  readonly wandbApiKey?: string;
  readonly wandbBaseUrl: string;
}

/** Problems with the OTel, MLflow and W&B options, each naming its flag (`named`) and the fix. */
export function trackingExportProblems(f: TrackingExportFields, named: (key: string) => string): string[] {
  const problems: string[] = [];
  const check = (key: string, run: () => unknown, what: (reason: string) => string) => {
    try {
      run();
    } catch (err) {
      problems.push(`${named(key)}: ${what(err instanceof Error ? err.message : String(err))}`);
    }
  };
  if (f.otelUrl !== undefined) {
    check("otelUrl", () => otlpMetricsUrl(f.otelUrl!), (r) => `'${f.otelUrl}': ${r}.`);
  }
  for (const domain of (f.otelStream ?? []).flatMap((v) => v.split(",")).map((v) => v.trim()).filter((v) => v !== "")) {
    if (!(STREAM_DOMAINS as readonly string[]).includes(domain.toLowerCase())) {
      problems.push(`${named("otelStream")}: '${domain}' is not one of ${STREAM_DOMAINS.join(", ")}.`);
    }
  }
  check("otelResourceAttributes", () => resourceAttributes(f.otelResourceAttributes), (r) => `${r}.`);
  check("otelHeaders", () => otlpHeaders(f.otelHeaders), (r) => `${r} (expected name=value,...).`);
  if (f.mlflowTrackingUri !== undefined) {
    check(
      "mlflowTrackingUri",
      () => httpUrl(f.mlflowTrackingUri!),
      (r) =>
        `${r}: infermeter talks to an MLflow tracking server over its REST API (mlflow server ... then ` +
        "http://host:5000); file stores, databases and databricks URIs are not supported.",
    );
    if (f.mlflowExperiment.trim() === "") problems.push(`${named("mlflowExperiment")} cannot be empty.`);
    if ((f.mlflowArtifactGlobs ?? []).some((g) => g.trim() === "")) {
      problems.push(`${named("mlflowArtifactGlobs")} entries cannot be empty.`);
    }
  }
  if (f.wandbProject !== undefined) {
    if (f.wandbProject.trim() === "") problems.push(`${named("wandbProject")} cannot be empty.`);
    check("wandbBaseUrl", () => httpUrl(f.wandbBaseUrl), (r) => `${r}.`);
    if (f.wandbApiKey === undefined || f.wandbApiKey.trim() === "") {
      problems.push(
        `${named("wandbProject")} needs a Weights & Biases API key: set WANDB_API_KEY (or --wandb-api-key).`,
      );
    }
  }
  return problems;
}
