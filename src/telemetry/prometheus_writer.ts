/**
 * Builds Prometheus text exposition format 0.0.4: one `# HELP` and `# TYPE` line per family, then its samples,
 * label values and help escaped as the format requires. Used by the embedded API's `/metrics` and the simulator's
 * vLLM- and DCGM-style endpoints; `prometheus_text.ts` parses what it writes.
 */
import type { Labels } from "./prometheus_text.ts";

export interface HistogramData {
  readonly labels?: Labels;
  /** Upper bounds, ascending, without +Inf. */
  readonly bounds: readonly number[];
  /** Cumulative count per bound (same length as `bounds`). */
  readonly cumulative: readonly number[];
  readonly sum: number;
  readonly count: number;
}

export class PrometheusWriter {
  readonly #lines: string[] = [];
  readonly #names = new Set<string>();

  /** A counter family `name` (conventionally ending in `_total`) with one sample per label set. */
  counter(name: string, help: string, series: readonly { labels?: Labels; value: number }[] | number): this {
    return this.#simple(name, "counter", help, series);
  }

  gauge(name: string, help: string, series: readonly { labels?: Labels; value: number }[] | number): this {
    return this.#simple(name, "gauge", help, series);
  }

  histogram(name: string, help: string, series: readonly HistogramData[]): this {
    this.#header(name, "histogram", help);
    for (const h of series) {
      for (let i = 0; i < h.bounds.length; i++) {
        this.#lines.push(
          `${name}_bucket${labelText({ ...h.labels, le: formatValue(h.bounds[i]) })} ${h.cumulative[i]}`,
        );
      }
      this.#lines.push(`${name}_bucket${labelText({ ...h.labels, le: "+Inf" })} ${h.count}`);
      this.#lines.push(`${name}_sum${labelText(h.labels ?? {})} ${formatValue(h.sum)}`);
      this.#lines.push(`${name}_count${labelText(h.labels ?? {})} ${h.count}`);
    }
    return this;
  }

  /** The exposition, ending with a newline. */
  text(): string {
    return this.#lines.length === 0 ? "" : this.#lines.join("\n") + "\n";
  }

  #simple(
    name: string,
    type: "counter" | "gauge",
    help: string,
    series: readonly { labels?: Labels; value: number }[] | number,
  ): this {
    const list = typeof series === "number" ? [{ value: series }] : series;
    this.#header(name, type, help);
    for (const s of list) this.#lines.push(`${name}${labelText(s.labels ?? {})} ${formatValue(s.value)}`);
    return this;
  }

  #header(name: string, type: string, help: string): void {
    if (this.#names.has(name)) throw new RangeError(`metric family ${name} written twice`);
    this.#names.add(name);
    this.#lines.push(`# HELP ${name} ${help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")}`, `# TYPE ${name} ${type}`);
  }
}

/** `{a="x",b="y"}`, or nothing without labels. */
export function labelText(labels: Labels): string {
  const keys = Object.keys(labels);
  if (keys.length === 0) return "";
  return `{${keys.map((k) => `${k}="${escapeLabelValue(labels[k])}"`).join(",")}}`;
}

export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/** A sample value in the format's spelling (`+Inf`, `-Inf`, `NaN`, else the shortest decimal). */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}
