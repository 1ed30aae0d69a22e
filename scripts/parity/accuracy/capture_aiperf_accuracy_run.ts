/**
 * Captures what AIPerf 0.13 writes for an accuracy run against this checkout's `serve-sim`: GSM8K from the fixture
 * copy (`sitecustomize.py` routes AIPerf's `load_dataset` to it), the simulator answering each question with a known
 * text (`tests/fixtures/accuracy/gsm8k_answers.jsonl`: right, wrong, right without the `####` marker, no number), 10
 * requests (AIPerf's default) over the 4 problems. Keeps `accuracy_results.csv`, `accuracy_export.jsonl`, the
 * `accuracy.*` entries of `profile_export_aiperf.json`, the accuracy rows of `profile_export_aiperf.csv` and the
 * console's accuracy table in `tests/fixtures/aiperf_0_13/accuracy_gsm8k/`; request ids, worker ids, timestamps and
 * the port are replaced by `<…>` placeholders, nothing else is edited.
 *
 *   deno run -A scripts/parity/accuracy/capture_aiperf_accuracy_run.ts [--aiperf /path/to/aiperf]
 */
import { join } from "node:path";
import { aiperfBin, ROOT, run, startSim, TOKENIZER } from "../harness.ts";

const AIPERF = aiperfBin(Deno.args);
const OUT = join(ROOT, "tests/fixtures/aiperf_0_13/accuracy_gsm8k");
const ANSWERS = join(ROOT, "tests/fixtures/accuracy/gsm8k_answers.jsonl");

const work = await Deno.makeTempDir({ prefix: "aiperf-accuracy-" });
try {
  const sim = await startSim(["--ttft", "5", "--itl", "1", "--answers", ANSWERS], join(work, "journal.jsonl"));
  const args = [
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
  ];
  const r = await run(AIPERF, args, work, {
    ...Deno.env.toObject(),
    HOME: work,
    NO_COLOR: "1",
    COLUMNS: "200",
    PYTHONPATH: join(ROOT, "scripts/parity/accuracy"),
    AIPERF_FIXTURE_DATASETS: join(ROOT, "tests/fixtures/accuracy/datasets"),
  });
  await sim.stop();
  if (r.code !== 0) throw new Error(`aiperf exited ${r.code}: ${r.stderr}\n${r.stdout}`);
  const dir = join(work, "artifacts", "sim-model-openai-chat-concurrency1");
  await Deno.mkdir(OUT, { recursive: true });
  await Deno.copyFile(join(dir, "accuracy_results.csv"), join(OUT, "accuracy_results.csv"));
  const lines = (await Deno.readTextFile(join(dir, "accuracy_export.jsonl"))).split("\n").filter((l) => l !== "");
  const scrubbed = lines.map((line) =>
    line.replace(/"x_request_id":"[^"]*"/, '"x_request_id":"<id>"').replace(
      /"worker_id":"[^"]*"/,
      '"worker_id":"<worker>"',
    )
      .replace(/"timestamp_ns":\d+/, '"timestamp_ns":0')
  );
  await Deno.writeTextFile(join(OUT, "accuracy_export.jsonl"), scrubbed.join("\n") + "\n");
  const summary = JSON.parse(await Deno.readTextFile(join(dir, "profile_export_aiperf.json")));
  const accuracyKeys = Object.fromEntries(Object.entries(summary).filter(([k]) => k.startsWith("accuracy.")));
  await Deno.writeTextFile(join(OUT, "summary_accuracy_entries.json"), JSON.stringify(accuracyKeys, null, 2) + "\n");
  const csvRows = (await Deno.readTextFile(join(dir, "profile_export_aiperf.csv"))).split("\r\n")
    .filter((l) => l.startsWith("Accuracy"));
  await Deno.writeTextFile(join(OUT, "summary_csv_accuracy_rows.txt"), csvRows.join("\n") + "\n");
  const stdout = r.stdout.replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:<port>");
  const start = stdout.lastIndexOf("\n", stdout.indexOf("Accuracy Benchmark Results")) + 1;
  const table = stdout.slice(start, stdout.indexOf("\n\n", start));
  await Deno.writeTextFile(join(OUT, "console_accuracy_table.txt"), table.trimEnd() + "\n");
  await Deno.writeTextFile(
    join(OUT, "command.txt"),
    `aiperf ${args.join(" ").replace(sim.url, "<sim>").replace(ROOT, "<repo>/")}\n` +
      `serve-sim --port 0 --tokenizer tests/fixtures/tiny_bpe --usage-details --ttft 5 --itl 1 --answers ` +
      `tests/fixtures/accuracy/gsm8k_answers.jsonl\n`,
  );
  console.error(`→ ${OUT}`);
} finally {
  await Deno.remove(work, { recursive: true });
}
