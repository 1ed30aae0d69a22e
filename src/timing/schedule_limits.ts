/**
 * The longest schedule a run may plan. A rate so low that its requests are days apart (`--request-rate 1e-300`)
 * would send one request and then wait silently for longer than anyone watches: such a run is refused at plan
 * time (exit 2) with what it would have done, rather than started.
 */
import type { OptionReader } from "../base/option_spec.ts";

/** A run's send schedule may span at most this long (seconds): a week. */
export const MAX_SCHEDULE_SECONDS = 7 * 24 * 3600;

/** Seconds for people: `12.5 s`, `3.2 h`, `41 days`, `1e+300 s`. */
export function spanText(seconds: number): string {
  if (seconds < 120) return `${Number(seconds.toPrecision(3))} s`;
  if (seconds < 2 * 86_400) return `${Number((seconds / 3600).toPrecision(3))} h`;
  if (seconds < 1e6 * 86_400) return `${Number((seconds / 86_400).toPrecision(3))} days`;
  return `${seconds.toExponential(1)} s`;
}

/**
 * Why the rate option `rateKey` cannot be run, or undefined: with `--benchmark-duration`, its mean interval must fit
 * in the duration (else about one request is sent, then nothing until the end); otherwise the planned requests
 * (`--request-count`, at least one) must be sent within {@link MAX_SCHEDULE_SECONDS}.
 */
export function scheduleSpanProblem(
  values: OptionReader,
  rateKey: string,
  bounds: { readonly durationKey: string; readonly countKey: string } = {
    durationKey: "benchmarkDuration",
    countKey: "requestCount",
  },
): string | undefined {
  const rate = values.value(rateKey);
  if (typeof rate !== "number" || !(rate > 0)) return undefined;
  const gap = 1 / rate;
  const duration = values.value(bounds.durationKey);
  if (typeof duration === "number") {
    if (gap <= duration) return undefined;
    return `${values.named(rateKey)} ${rate} spaces requests ${spanText(gap)} apart on average, longer than ` +
      `${values.named(bounds.durationKey)} ${duration}: the run would send about one request and then wait ` +
      "until the end; raise the rate or lengthen the duration.";
  }
  const count = values.value(bounds.countKey);
  const requests = typeof count === "number" ? count : 1;
  const span = requests * gap;
  if (span <= MAX_SCHEDULE_SECONDS) return undefined;
  return `${values.named(rateKey)} ${rate} would take ${spanText(span)} to send ${
    requests === 1 ? "its first request" : `${requests} requests`
  } (${spanText(gap)} apart on average), beyond the ${spanText(MAX_SCHEDULE_SECONDS)} a run's schedule may ` +
    `span; raise the rate, or bound the run with ${values.flag(bounds.durationKey)}.`;
}
