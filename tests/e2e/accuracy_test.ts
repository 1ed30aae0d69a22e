/**
 * Accuracy benchmarks end to end: the CLI reads the benchmark from local copies (the fixtures), `serve-sim --answers`
 * answers each question with a known text, and the accuracy files, table and requests are checked — against what
 * AIPerf 0.13 wrote for the same run (`tests/fixtures/aiperf_0_13/accuracy_gsm8k/`, captured by
 * `scripts/parity/accuracy/capture_aiperf_accuracy_run.ts`) and against hand-worked verdicts.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, readJson, runCli, startSim, tempDir } from "./cli_harness.ts";
import { readRequestJournal } from "../../src/sim/read_request_journal.ts";
import { loadAccuracyDataset } from "../../src/dataset/accuracy/load_accuracy_dataset.ts";
import { sandboxProblem } from "../../src/dataset/accuracy/graders/code_sandbox.ts";

const FIXTURES = new URL("../fixtures/", import.meta.url).pathname;
const DATASETS = join(FIXTURES, "accuracy/datasets");
const AIPERF = join(FIXTURES, "aiperf_0_13/accuracy_gsm8k");
const TOKENIZER = join(FIXTURES, "tiny_bpe");
const ENV = { INFERMETER_DATASET_DIR: DATASETS };

function scrub(jsonl: string): string {
  return jsonl.replace(/"x_request_id":"[^"]*"/g, '"x_request_id":"<id>"')
    .replace(/"worker_id":"[^"]*"/g, '"worker_id":"<worker>"')
    .replace(/"timestamp_ns":\d+/g, '"timestamp_ns":0');
}

Deno.test("an accuracy run writes AIPerf's accuracy_results.csv, accuracy JSONL and console table", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim([
    "--ttft",
    "1",
    "--itl",
    "0.1",
    "--answers",
    join(FIXTURES, "accuracy/gsm8k_answers.jsonl"),
  ]);
  const run = await runCli(
    [
      "profile",
      "--model",
      "sim-model",
      "--tokenizer",
      TOKENIZER,
      "--random-seed",
      "7",
      "--ui-type",
      "none",
      "--endpoint-type",
      "chat",
      "--streaming",
      "--accuracy-benchmark",
      "gsm8k",
      "--url",
      sim.url,
      "--artifact-dir",
      "out",
    ],
    { cwd: tmp.path, env: ENV },
  );
  assertExit(run, 0);
  const dir = join(tmp.path, "out");
  // 10 requests (AIPerf's default) over 4 problems: right ×3, wrong ×3, right without "####" ×2, no number ×2.
  assert.equal(
    await Deno.readTextFile(join(dir, "accuracy_results.csv")),
    await Deno.readTextFile(join(AIPERF, "accuracy_results.csv")),
  );
  assert.equal(
    await Deno.readTextFile(join(dir, "accuracy_results.csv")),
    "task,correct,total,unparsed,accuracy\r\nOVERALL,5,10,4,0.5000\r\ngsm8k,5,10,4,0.5000\r\n",
  );
  assert.equal(
    scrub(await Deno.readTextFile(join(dir, "accuracy_export.jsonl"))),
    await Deno.readTextFile(join(AIPERF, "accuracy_export.jsonl")),
  );
  // Rich pads the centered title with spaces to the table's width; infermeter's tables end their lines at the text.
  const trimLines = (text: string) => text.split("\n").map((l) => l.trimEnd()).join("\n");
  const table = trimLines(await Deno.readTextFile(join(AIPERF, "console_accuracy_table.txt"))).trimEnd();
  assert.ok(trimLines(run.stdout).includes(table), `the console shows AIPerf's table:\n${table}\n---\n${run.stdout}`);
  const manifest = await readJson<{ files: { role: string; path: string }[] }>(join(dir, "run_manifest.json"));
  assert.deepEqual(
    manifest.files.filter((f) => f.role.startsWith("accuracy")).map((f) => [f.role, f.path]),
    [["accuracy_jsonl", "accuracy_export.jsonl"], ["accuracy_csv", "accuracy_results.csv"]],
  );
  // max_tokens is a ceiling in an accuracy run: no OSL-mismatch metrics (AIPerf's DISABLE_ON_ACCURACY).
  const summary = await readJson(join(dir, "profile_export_aiperf.json"));
  assert.ok(!("osl_mismatch_count" in summary) && !("osl_mismatch_diff_pct" in summary));
  // AIPerf's accuracy.* entries of the summary JSON, and its empty accuracy rows among the CSV's single values.
  assert.deepEqual(
    Object.fromEntries(Object.entries(summary).filter(([k]) => k.startsWith("accuracy."))),
    await readJson(join(AIPERF, "summary_accuracy_entries.json")),
  );
  const csvLines = (await Deno.readTextFile(join(dir, "profile_export_aiperf.csv"))).split("\r\n");
  const aiperfRows = (await Deno.readTextFile(join(AIPERF, "summary_csv_accuracy_rows.txt"))).trim().split("\n");
  const valuesHeader = csvLines.indexOf("Metric,Value");
  assert.deepEqual(csvLines.slice(valuesHeader + 1, valuesHeader + 1 + aiperfRows.length), aiperfRows);
  assert.match(run.stderr, /without temperature=0 in --extra-inputs/);
});

Deno.test("an MMLU run over completions sends the flat few-shot prompt with stop and max tokens, graded per subject", async () => {
  await using tmp = await tempDir();
  const env = (name: string) => (name === "INFERMETER_DATASET_DIR" ? DATASETS : undefined);
  const dataset = await loadAccuracyDataset({
    benchmark: "mmlu",
    tasks: ["abstract_algebra", "anatomy"],
    verbose: false,
  }, { env });
  // Golds: algebra " C", " A"; anatomy " B", " C". The server answers the first algebra and the first anatomy question
  // right ("C", " B"), the second algebra one wrong ("D") and the second anatomy one in words ("The answer is (C).").
  const answers = ["C", "D", " B", "The answer is (C)."];
  const golds = dataset.conversations.map((c) => dataset.accuracy.problems.get(c.id)!.groundTruth);
  assert.deepEqual(golds, [" C", " A", " B", " C"]);
  const answersFile = join(tmp.path, "answers.jsonl");
  await Deno.writeTextFile(
    answersFile,
    dataset.conversations.map((c, i) => JSON.stringify({ prompt: c.turns[0].texts[0], answer: answers[i] })).join("\n"),
  );
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim([
    "--ttft",
    "1",
    "--itl",
    "0.1",
    "--answers",
    answersFile,
    "--record-requests",
    journal,
  ]);
  const run = await runCli(
    [
      "profile",
      "-m",
      "m",
      "--tokenizer",
      TOKENIZER,
      "--ui",
      "none",
      "--endpoint-type",
      "completions",
      "--url",
      sim.url,
      "--accuracy-benchmark",
      "mmlu",
      "--accuracy-tasks",
      "abstract_algebra,anatomy",
      "--request-count",
      "4",
      "--extra-inputs",
      "temperature:0",
      "--artifact-dir",
      "out",
    ],
    { cwd: tmp.path, env: ENV },
  );
  assertExit(run, 0);
  assert.doesNotMatch(run.stderr, /without temperature=0/);
  await sim.stop();
  const bodies = (await readRequestJournal(journal)).filter((e) => e.path === "/v1/completions").map((e) =>
    e.body as { prompt: string; max_tokens: number; stop: string[]; temperature: number }
  );
  assert.equal(bodies.length, 4);
  for (const [i, body] of bodies.entries()) {
    assert.equal(body.prompt, dataset.conversations[i].turns[0].texts[0]);
    assert.equal(body.max_tokens, 5);
    assert.deepEqual(body.stop, ["\n"]);
    assert.equal(body.temperature, 0);
  }
  assert.match(
    bodies[0].prompt,
    /^The following are multiple choice questions \(with answers\) about abstract algebra\.\n\nQuestion: /,
  );
  // "The answer is (C)." is read by the grader's first tier ("answer is (X)"): right, and parsed.
  assert.equal(
    await Deno.readTextFile(join(tmp.path, "out", "accuracy_results.csv")),
    "task,correct,total,unparsed,accuracy\r\nOVERALL,3,4,0,0.7500\r\nabstract_algebra,1,2,0,0.5000\r\nanatomy,2,2,0,1.0000\r\n",
  );
});

Deno.test("--accuracy-grader, --accuracy-system-prompt and --accuracy-verbose change the grading, the request and the log", async () => {
  await using tmp = await tempDir();
  // exact_match compares with the gold as the dataset writes it (the worked solution): "#### 7" is wrong for it (right
  // for the default lighteval_gsm8k grader), the third solution word for word right, "35" and a sentence wrong; none is
  // empty, so none is unparsed.
  const questions = (await Deno.readTextFile(join(FIXTURES, "accuracy/gsm8k_answers.jsonl"))).trim().split("\n")
    .map((line) => (JSON.parse(line) as { prompt: string }).prompt);
  const answers = ["#### 7", "35", "He read 1200 / 4 = <<1200/4=300>>300 pages a day.\n#### 300", "I do not know."];
  const answersFile = join(tmp.path, "answers.jsonl");
  await Deno.writeTextFile(
    answersFile,
    questions.map((prompt, i) => JSON.stringify({ prompt, answer: answers[i] })).join("\n"),
  );
  const journal = join(tmp.path, "journal.jsonl");
  await using sim = await startSim([
    "--ttft",
    "1",
    "--itl",
    "0.1",
    "--answers",
    answersFile,
    "--record-requests",
    journal,
  ]);
  const run = await runCli(
    [
      "profile",
      "-m",
      "m",
      "--tokenizer",
      TOKENIZER,
      "--ui",
      "none",
      "--endpoint-type",
      "chat",
      "--url",
      sim.url,
      "--accuracy-benchmark",
      "gsm8k",
      "--accuracy-grader",
      "exact_match",
      "--accuracy-system-prompt",
      "Reply with the number only.",
      "--accuracy-verbose",
      "--request-count",
      "4",
      "--extra-inputs",
      "temperature:0",
      "--artifact-dir",
      "out",
    ],
    { cwd: tmp.path, env: ENV },
  );
  assertExit(run, 0);
  await sim.stop();
  const dir = join(tmp.path, "out");
  assert.equal(
    await Deno.readTextFile(join(dir, "accuracy_results.csv")),
    "task,correct,total,unparsed,accuracy\r\nOVERALL,1,4,0,0.2500\r\ngsm8k,1,4,0,0.2500\r\n",
  );
  const lines = (await Deno.readTextFile(join(dir, "accuracy_export.jsonl"))).trim().split("\n")
    .map((l) => JSON.parse(l) as { session_num: number; grader_name: string; passed: boolean });
  assert.deepEqual(lines.map((l) => l.grader_name), ["exact_match", "exact_match", "exact_match", "exact_match"]);
  assert.deepEqual(lines.sort((a, b) => a.session_num - b.session_num).map((l) => l.passed), [
    false,
    false,
    true,
    false,
  ]);
  const bodies = (await readRequestJournal(journal)).filter((e) => e.path === "/v1/chat/completions")
    .map((e) => e.body as { messages: { role: string; content: string }[] });
  assert.equal(bodies.length, 4);
  for (const [i, body] of bodies.entries()) {
    assert.deepEqual(body.messages, [
      { role: "system", content: "Reply with the number only." },
      { role: "user", content: questions[i] },
    ]);
  }
  const log = await Deno.readTextFile(join(dir, "logs", "infermeter.log"));
  assert.match(
    log,
    /\[accuracy\] session=2 correct=True unparsed=False reason=.strict equality: stripped pred 'He read 1200/,
  );
  assert.equal(log.match(/\[accuracy\] session=\d/g)?.length, 4);
});

Deno.test("accuracy options are refused without a benchmark, beside another dataset, and for data not on this machine", async () => {
  await using tmp = await tempDir();
  const profile = (args: string[], env: Record<string, string> = ENV) =>
    runCli(["profile", "-m", "m", "--url", "http://127.0.0.1:9", "--ui", "none", ...args], { cwd: tmp.path, env });
  const alone = await profile(["--accuracy-tasks", "anatomy"]);
  assertExit(alone, 2);
  assert.match(alone.stderr, /--accuracy-tasks applies only to an accuracy benchmark/);
  const withFile = await profile(["--accuracy-benchmark", "gsm8k", "--input-file", "x.jsonl"]);
  assertExit(withFile, 2);
  assert.match(withFile.stderr, /--accuracy-benchmark.*--input-file|--input-file.*--accuracy-benchmark/);
  const shuffled = await profile(["--accuracy-benchmark", "gsm8k", "--dataset-sampling-strategy", "random"]);
  assertExit(shuffled, 2);
  assert.match(shuffled.stderr, /sequential/);
  const missing = await profile(["--accuracy-benchmark", "gpqa_diamond"], {
    HOME: tmp.path,
    INFERMETER_DATASET_DIR: tmp.path,
  });
  assertExit(missing, 2);
  assert.match(missing.stderr, /needs Idavidrein\/gpqa \(subset gpqa_diamond, split train\) on this machine/);
  const shots = await profile(["--accuracy-benchmark", "lcb_codegeneration", "--accuracy-n-shots", "2"]);
  assertExit(shots, 2);
  assert.match(shots.stderr, /--accuracy-n-shots: other than 0 is not supported by lcb_codegeneration/);
  const unknown = await profile(["--accuracy-benchmark", "mmlu", "--accuracy-tasks", "astrology"]);
  assertExit(unknown, 2);
  assert.match(unknown.stderr, /'astrology' is not an MMLU subject/);
});

Deno.test("LiveCodeBench answers are run against their tests in the sandbox, or the grader is refused with its reason", async () => {
  await using tmp = await tempDir();
  const answersFile = join(tmp.path, "answers.jsonl");
  const env = (name: string) => (name === "INFERMETER_DATASET_DIR" ? DATASETS : undefined);
  const dataset = await loadAccuracyDataset({ benchmark: "lcb_codegeneration", verbose: false }, { env });
  const code = [
    // stdin problem (A + B): reads the input and prints the sum.
    "Here you go:\n```python\na, b = map(int, input().split())\nprint(a + b)\n```",
    // call-based problem (double): returns n + 1, wrong on every private test.
    "```python\nclass Solution:\n    def double(self, n: int) -> int:\n        return n + 1\n```",
  ];
  await Deno.writeTextFile(
    answersFile,
    dataset.conversations.map((c, i) => JSON.stringify({ prompt: c.turns[0].texts[0], answer: code[i] })).join("\n"),
  );
  await using sim = await startSim(["--ttft", "1", "--itl", "0.1", "--answers", answersFile]);
  const run = await runCli(
    [
      "profile",
      "-m",
      "m",
      "--tokenizer",
      TOKENIZER,
      "--ui",
      "none",
      "--endpoint-type",
      "chat",
      "--url",
      sim.url,
      "--accuracy-benchmark",
      "lcb_codegeneration",
      "--request-count",
      "2",
      "--artifact-dir",
      "out",
    ],
    { cwd: tmp.path, env: ENV, timeoutMs: 120_000 },
  );
  const problem = await sandboxProblem();
  if (problem !== undefined) {
    assertExit(run, 2);
    assert.match(
      run.stderr,
      /--accuracy-grader code_execution: cannot run on this machine: generated code is run only in a sandbox/,
    );
    return;
  }
  assertExit(run, 0);
  assert.equal(
    await Deno.readTextFile(join(tmp.path, "out", "accuracy_results.csv")),
    "task,correct,total,unparsed,accuracy\r\nOVERALL,1,2,0,0.5000\r\nlcb_codegeneration,1,2,0,0.5000\r\n",
  );
  const lines = (await Deno.readTextFile(join(tmp.path, "out", "accuracy_export.jsonl"))).trim().split("\n").map((l) =>
    JSON.parse(l)
  ).sort((a, b) => a.session_num - b.session_num); // graded concurrently: written as each finishes
  assert.deepEqual(lines.map((l) => [l.passed, l.expected, l.explanation]), [
    [true, "<lcb test cases>", "lighteval codegen_metrics pass@1=1.000 (snippet length=45)"],
    [false, "<lcb test cases>", "lighteval codegen_metrics pass@1=0.000 (snippet length=73)"],
  ]);
});
