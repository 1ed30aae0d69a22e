/**
 * The unit of a scraped metric, inferred from its name's suffix the way AIPerf 0.13 does (longest suffix first):
 * `_seconds` → seconds, `_tokens_total` → tokens, `_requests` → requests, `_perc` → percent, …; `*num_requests_*`
 * (vLLM's running/waiting gauges) → requests. Undefined when nothing matches.
 */
const SUFFIX_UNITS: Readonly<Record<string, string>> = {
  _seconds: "seconds",
  _seconds_total: "seconds",
  _milliseconds: "ms",
  _ms: "ms",
  _ms_total: "ms",
  _nanoseconds: "ns",
  _ns: "ns",
  _ns_total: "ns",
  _bytes: "bytes",
  _kilobytes: "kilobytes",
  _megabytes: "megabytes",
  _gigabytes: "gigabytes",
  _bytes_total: "bytes",
  _total: "count",
  _count: "count",
  _tokens: "tokens",
  _tokens_total: "tokens",
  _requests: "requests",
  _requests_total: "requests",
  request_success: "requests",
  _errors: "errors",
  _errors_total: "errors",
  _error_count: "errors",
  _error_count_total: "errors",
  _reqs: "requests",
  _blocks: "blocks",
  _blocks_total: "blocks",
  _block_count: "blocks",
  _gb_s: "GB/s",
  _ratio: "ratio",
  _percent: "percent",
  _perc: "percent",
  _celsius: "celsius",
  _joules: "joules",
  _watts: "watts",
};

const SUFFIXES = Object.keys(SUFFIX_UNITS).sort((a, b) => b.length - a.length);

export function inferUnit(metricName: string): string | undefined {
  for (const suffix of SUFFIXES) if (metricName.endsWith(suffix)) return SUFFIX_UNITS[suffix];
  if (/num_requests_/.test(metricName)) return "requests";
  return undefined;
}
