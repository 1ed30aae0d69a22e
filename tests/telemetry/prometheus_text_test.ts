import assert from "node:assert/strict";
import { parsePrometheusText, PrometheusParseError } from "../../src/telemetry/prometheus_text.ts";
import { PrometheusWriter } from "../../src/telemetry/prometheus_writer.ts";

const VALID = `# HELP http_requests_total Requests, by "code".
# TYPE http_requests_total counter
http_requests_total{code="200",path="/a\\"b\\\\c\\nd"} 1027 1395066363000
http_requests_total{code="400"} 3
# TYPE temp gauge
temp -Inf
# TYPE lat histogram
lat_bucket{le="0.1"} 2
lat_bucket{le="1"} 5
lat_bucket{le="+Inf"} 6
lat_sum 3.5
lat_count 6
untyped_thing NaN
`;

Deno.test("parsePrometheusText reads counters, gauges, histograms, labels with escapes, timestamps and specials", () => {
  const families = parsePrometheusText(VALID);
  assert.deepEqual(families.map((f) => [f.name, f.type]), [
    ["http_requests_total", "counter"],
    ["temp", "gauge"],
    ["lat", "histogram"],
    ["untyped_thing", "untyped"],
  ]);
  const c = families[0];
  assert.equal(c.help, 'Requests, by "code".');
  assert.deepEqual(c.samples[0].labels, { code: "200", path: '/a"b\\c\nd' });
  assert.equal(c.samples[0].timestampMs, 1395066363000);
  assert.equal(families[1].samples[0].value, -Infinity);
  assert.deepEqual(families[2].histograms, [{
    labels: {},
    // `leText` keeps the label as written: AIPerf's exports key buckets by it.
    buckets: [
      { le: 0.1, count: 2, leText: "0.1" },
      { le: 1, count: 5, leText: "1" },
      { le: Infinity, count: 6, leText: "+Inf" },
    ],
    sum: 3.5,
    count: 6,
  }]);
  assert.ok(Number.isNaN(families[3].samples[0].value));
});

Deno.test("parsePrometheusText rejects broken expositions with the line", () => {
  const bad: [string, RegExp][] = [
    ["a 1", /newline/],
    ["9a 1\n", /invalid metric name/],
    ['a{b="1} 2\n', /unterminated/],
    ["a{b=1} 2\n", /quoted/],
    ["a one\n", /invalid value/],
    ["a 1\na 2\n", /duplicate series/],
    ['a 1\nb 1\na{x="1"} 2\n', /not together/],
    ["# TYPE a gauge\n# TYPE a gauge\na 1\n", /second TYPE/],
    ["a 1\n# TYPE a gauge\n", /after its samples/],
    ["# TYPE a bogus\n", /unknown metric type/],
    ["# TYPE c counter\nc -1\n", /negative/],
    ['# TYPE h histogram\nh_bucket{le="1"} 2\nh_sum 1\nh_count 2\n', /no \+Inf bucket/],
    ['# TYPE h histogram\nh_bucket{le="1"} 3\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 2\n', /must not decrease/],
    ['# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 3\n', /differs/],
    ["# TYPE h histogram\nh_bucket 2\n", /without an 'le'/],
  ];
  for (const [text, message] of bad) {
    assert.throws(
      () => parsePrometheusText(text),
      (e: unknown) => e instanceof PrometheusParseError && message.test(e.message),
      text,
    );
  }
});

Deno.test("PrometheusWriter output parses back to the same values", () => {
  const text = new PrometheusWriter()
    .counter("x_total", "help with \\ and\nnewline", [{ labels: { a: 'q"\\' }, value: 3 }])
    .gauge("g", "g", Infinity)
    .histogram("h", "h", [{ labels: { m: "1" }, bounds: [0.5, 1], cumulative: [1, 3], sum: 2, count: 4 }])
    .text();
  const [x, g, h] = parsePrometheusText(text);
  assert.equal(x.help, "help with \\ and\nnewline");
  assert.deepEqual(x.samples[0].labels, { a: 'q"\\' });
  assert.equal(g.samples[0].value, Infinity);
  assert.deepEqual(h.histograms![0].buckets.map((b) => b.count), [1, 3, 4]);
  assert.throws(() => new PrometheusWriter().gauge("g", "g", 1).gauge("g", "g", 2), /twice/);
});
