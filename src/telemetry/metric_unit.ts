/**
 * The unit of a scraped metric as AIPerf 0.13 infers it (`server_metrics/units.py`), by priority:
 * 1. a range in the description: `(0-1)`, `0.0 to 1.0`, `1 means 100 percent` → ratio; `(0-100)`, `0-100%` → percent;
 * 2. a unit in the description: `(in MiB)`-style tags (DCGM), else `in seconds`, `(ms)`, `in bytes`, `(tokens/s)`,
 *    `in tokens`, …;
 * 3. the name's suffix, longest first (`_seconds` → seconds, `_tokens_total` → tokens, `_total` → count, `_perc` →
 *    percent, …), then `num_requests_` anywhere → requests.
 * Names as AIPerf displays them (`milliseconds`, `watt`, `gb/s`). Undefined when nothing matches.
 */
const SUFFIX_UNITS: Readonly<Record<string, string>> = {
  _seconds: "seconds",
  _seconds_total: "seconds",
  _milliseconds: "milliseconds",
  _ms: "milliseconds",
  _ms_total: "milliseconds",
  _nanoseconds: "nanoseconds",
  _ns: "nanoseconds",
  _ns_total: "nanoseconds",
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
  _gb_s: "gb/s",
  _ratio: "ratio",
  _percent: "percent",
  _perc: "percent",
  _celsius: "celsius",
  _joules: "joule",
  _watts: "watt",
};

const SUFFIXES = Object.keys(SUFFIX_UNITS).sort((a, b) => b.length - a.length);

const RATIO_RANGE = new RegExp(
  String.raw`\(0(?:\.0)?\s*(?:[-–—]+|to)\s*1(?:\.0)?\)|\b0(?:\.0)?\s*(?:[-–—]+|to)\s*1(?:\.0)?\b|` +
    String
      .raw`\brange\s+0(?:\.0)?\s*(?:[-–—]+|to)\s*1(?:\.0)?\b|(?:\b|\()1(?:\.0)?\s*(?:means|is|equals?|==?)\s*100\s*(?:%|percent)`,
  "i",
);
const PERCENT_RANGE = new RegExp(
  String
    .raw`\(0(?:\.0)?\s*(?:[-–—]+|to)\s*100(?:\.0)?\)|\brange\s+0\s*(?:[-–—]+|to)\s*100\b|\b0\s*(?:[-–—]+|to)\s*100\s*%`,
  "i",
);

/** `(in <tag>)` tags, matched case-sensitively (mJ is not MJ). */
const TAG_UNITS: Readonly<Record<string, string>> = {
  MiB: "megabytes",
  GiB: "gigabytes",
  KiB: "kilobytes",
  B: "bytes",
  MB: "megabytes",
  GB: "gigabytes",
  KB: "kilobytes",
  TB: "terabytes",
  C: "celsius",
  "°C": "celsius",
  F: "fahrenheit",
  "°F": "fahrenheit",
  K: "kelvin",
  Hz: "hertz",
  MHz: "megahertz",
  GHz: "gigahertz",
  W: "watt",
  mW: "milliwatt",
  J: "joule",
  mJ: "millijoule",
  MJ: "megajoule",
  s: "seconds",
  sec: "seconds",
  ms: "milliseconds",
  ns: "nanoseconds",
  us: "microseconds",
  "µs": "microseconds",
  "GB/s": "gb/s",
  "MB/s": "mb/s",
  "%": "percent",
  percent: "percent",
};

const DESCRIPTION_UNITS: readonly (readonly [RegExp, string])[] = [
  [/(?:\bin\s+|\()seconds?(?:\b|\))/i, "seconds"],
  [/(?:\bin\s+|\()(?:milliseconds?|ms)(?:\b|\))/i, "milliseconds"],
  [/(?:\bin\s+|\()(?:nanoseconds?|ns)(?:\b|\))/i, "nanoseconds"],
  [/(?:\bin\s+|\()bytes?(?:\b|\))/i, "bytes"],
  [/(?:\bin\s+|\()GB\/s(?:\b|\))/i, "gb/s"],
  [/(?:\bin\s+|\()MB\/s(?:\b|\))/i, "mb/s"],
  [/(?:\bin\s+|\()tokens?\/s(?:ec(?:ond)?)?(?:\b|\))/i, "tokens/s"],
  [/(?:\bin\s+|\()requests?\/s(?:ec(?:ond)?)?(?:\b|\))/i, "requests/s"],
  [/\bin\s+tokens?\b/i, "tokens"],
];

export function inferUnit(metricName: string, description?: string): string | undefined {
  if (description) {
    if (RATIO_RANGE.test(description)) return "ratio";
    if (PERCENT_RANGE.test(description)) return "percent";
    const tag = /\(in\s+([^\s)]+)\)/.exec(description)?.[1];
    if (tag !== undefined && TAG_UNITS[tag] !== undefined) return TAG_UNITS[tag];
    for (const [pattern, unit] of DESCRIPTION_UNITS) if (pattern.test(description)) return unit;
  }
  const name = metricName.toLowerCase();
  for (const suffix of SUFFIXES) if (name.endsWith(suffix)) return SUFFIX_UNITS[suffix];
  if (name.includes("num_requests_")) return "requests";
  return undefined;
}
