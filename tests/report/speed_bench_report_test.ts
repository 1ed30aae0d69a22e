import assert from "node:assert/strict";
import {
  buildSpeedBenchMatrix,
  matrixColumns,
  renderSpeedBenchCsv,
  renderSpeedBenchTable,
  runCategory,
  runModel,
  runValue,
  serverAcceptLength,
  serverAcceptRate,
  type SpeedBenchMatrix,
} from "../../src/report/speed_bench_report.ts";

const counter = (total: number) => ({ type: "counter", series: [{ stats: { total } }] });
const gauge = (avg: number) => ({ type: "gauge", series: [{ stats: { avg } }] });

function profile(format: string | undefined, model = "m1", extra: Record<string, unknown> = {}) {
  return {
    input_config: { models: { items: [{ name: model }] }, datasets: [{ name: "main", type: "file", format }] },
    ...extra,
  };
}

Deno.test("a run's category is its dataset selector without the SPEED-Bench prefix; its model the first named", () => {
  assert.equal(runCategory(profile("speed_bench_coding")), "coding");
  assert.equal(runCategory(profile("speed_bench_throughput_1k_low_entropy")), "throughput_1k_low_entropy");
  assert.equal(runCategory({ input_config: { datasets: [{ type: "public", dataset: "spec_al_gsm8k" }] } }), "gsm8k");
  assert.equal(runCategory(profile("single_turn")), undefined);
  assert.equal(runCategory({}), undefined);
  assert.equal(runModel(profile("x", "Qwen/Qwen3-8B")), "Qwen/Qwen3-8B");
  assert.equal(runModel({ input_config: { models: { items: [] } } }), "unknown");
});

Deno.test("acceptance from server metrics: engines' gauges first, then vLLM's counters, then a name match", () => {
  const vllm = {
    metrics: {
      "vllm:spec_decode_num_accepted_tokens": counter(30),
      "vllm:spec_decode_num_drafts": counter(20),
      "vllm:spec_decode_num_draft_tokens": counter(60),
    },
  };
  assert.equal(serverAcceptLength(vllm), 30 / 20 + 1);
  assert.equal(serverAcceptRate(vllm), 0.5);
  const sglang = {
    metrics: { ...vllm.metrics, "sglang:spec_accept_length": gauge(3.2), "sglang:spec_accept_rate": gauge(0.7) },
  };
  assert.equal(serverAcceptLength(sglang), 3.2);
  assert.equal(serverAcceptRate(sglang), 0.7);
  assert.equal(serverAcceptLength({ metrics: { "x:my_spec_accept_length_mean": gauge(2.25) } }), 2.25);
  assert.equal(serverAcceptLength({ metrics: { "vllm:spec_decode_num_drafts": counter(0) } }), undefined);
  assert.equal(serverAcceptRate({ metrics: {} }), undefined);
});

Deno.test("a run without server acceptance falls back to its own per-request figures; throughput is the run's", () => {
  const own = profile("speed_bench_math", "m1", {
    spec_decode_token_weighted_acceptance_length: { unit: "ratio", avg: 2.75 },
    spec_decode_overall_draft_acceptance_rate: { unit: "%", avg: 62.5 },
    output_token_throughput: { unit: "tokens/sec", avg: 1234.5 },
  });
  assert.equal(runValue("accept_length", own, undefined), 2.75);
  assert.equal(runValue("accept_rate", own, { metrics: {} }), 0.625);
  assert.equal(runValue("accept_length", own, { metrics: { "sglang:spec_accept_length": gauge(3) } }), 3);
  assert.equal(runValue("throughput", own, undefined), 1234.5);
  assert.equal(runValue("accept_length", profile("speed_bench_math"), undefined), undefined);
});

Deno.test("columns follow the category set's order; Overall is each model's mean; missing cells are empty or '-'", () => {
  const matrix: SpeedBenchMatrix = new Map([
    ["m2", new Map<string, number | undefined>([["math", 2], ["coding", 3]])],
    ["m1", new Map<string, number | undefined>([["writing", 4], ["coding", undefined]])],
  ]);
  const columns = matrixColumns(matrix);
  assert.deepEqual(columns, ["coding", "math", "writing"]);
  assert.equal(
    renderSpeedBenchCsv(matrix, columns),
    "Model,coding,math,writing,Overall\r\nm1,,,4.00,4.00\r\nm2,3.00,2.00,,2.50\r\n",
  );
  const table = renderSpeedBenchTable(matrix, columns, "accept_length");
  assert.match(table, /Acceptance Length Report/);
  assert.match(table, /│ m1 +│ +- │ +- │ +4\.00 │ +4\.00 │/);
  assert.deepEqual(matrixColumns(new Map([["m", new Map([["mixed", 1], ["low_entropy", 2]])]])), [
    "low_entropy",
    "mixed",
  ]);
  assert.deepEqual(matrixColumns(new Map([["m", new Map([["mbpp", 1], ["gsm8k", 2]])]])), ["gsm8k", "mbpp"]);
  assert.deepEqual(matrixColumns(new Map([["m", new Map([["zeta", 1], ["coding", 2]])]])), ["coding", "zeta"]);
});

Deno.test("runs are found by their manifests (a prefixed summary, a sweep's points) and by AIPerf's file names", async () => {
  const root = await Deno.makeTempDir({ prefix: "speed_bench_" });
  try {
    const write = (path: string, value: unknown) => Deno.writeTextFile(`${root}/${path}`, JSON.stringify(value));
    // An infermeter run whose files carry a prefix: found through run_manifest.json.
    await Deno.mkdir(`${root}/a_coding`);
    await write("a_coding/run_manifest.json", {
      producer: "infermeter",
      version: "t",
      schema_version: 1,
      kind: "run",
      files: [
        { role: "summary_json", label: "JSON Export", path: "x_aiperf.json" },
        { role: "server_metrics_json", label: "Server Metrics JSON Export", path: "x_server.json" },
      ],
    });
    await write("a_coding/x_aiperf.json", profile("speed_bench_coding"));
    await write("a_coding/x_server.json", {
      metrics: { "vllm:spec_decode_num_accepted_tokens": counter(9), "vllm:spec_decode_num_drafts": counter(3) },
    });
    // An AIPerf run: its file names.
    await Deno.mkdir(`${root}/b_math`);
    await write("b_math/profile_export_aiperf.json", profile("speed_bench_math"));
    await write("b_math/server_metrics_export.json", { metrics: { "sglang:spec_accept_length": gauge(2.5) } });
    // A sweep: its points.
    await Deno.mkdir(`${root}/c_sweep/p1`, { recursive: true });
    await write("c_sweep/run_manifest.json", {
      producer: "infermeter",
      version: "t",
      schema_version: 1,
      kind: "sweep",
      files: [],
      points: [{ label: "p1", dir: "p1" }],
    });
    await write("c_sweep/p1/profile_export_aiperf.json", profile("speed_bench_qa", "m2"));
    // Not a SPEED-Bench run, and a folder that is no run.
    await Deno.mkdir(`${root}/d_other`);
    await write("d_other/profile_export_aiperf.json", profile("single_turn"));
    await Deno.mkdir(`${root}/e_empty`);
    const warnings: string[] = [];
    const { runs, matrix } = await buildSpeedBenchMatrix({
      paths: [root, `${root}/missing`],
      metric: "accept_length",
      warn: (line) => warnings.push(line),
    });
    assert.equal(runs, 4);
    assert.deepEqual([...matrix.get("m1")!], [["coding", 4], ["math", 2.5]]);
    assert.deepEqual([...matrix.get("m2")!], [["qa", undefined]]);
    assert.ok(warnings.some((w) => w.includes("missing is not a directory")), warnings.join("\n"));
    assert.ok(warnings.some((w) => w.includes("cannot determine category") && w.includes("d_other")));
    await assert.rejects(
      buildSpeedBenchMatrix({ paths: [`${root}/e_empty`], metric: "throughput", warn: () => {} }),
      /no run directories found/,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
