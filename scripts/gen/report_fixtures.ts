/**
 * `deno run -A scripts/gen/report_fixtures.ts`: regenerates `tests/fixtures/runs/`, real runs against `serve-sim`
 * that the report, plot and compare tests read: a three-point concurrency sweep (1, 2, 4 streams) against a jittery
 * server that fails 5 % of requests, and a run against a faster server (`faster/`) to compare with `sweep/c2`.
 * Only the files the readers need are kept (summary JSON, per-request JSONL, console text).
 */
const root = new URL("../../", import.meta.url).pathname;
const out = `${root}tests/fixtures/runs`;
const main = `${root}main.ts`;
const KEEP = ["profile_export_aiperf.json", "profile_export.jsonl", "profile_export_console.txt"];

async function startSim(args: string[]): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", main, "serve-sim", "--port", "0", "--seed", "7", ...args],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!/listening on (\S+)/.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error("serve-sim exited before listening");
    text += value;
  }
  const url = /listening on (\S+)/.exec(text)![1];
  return {
    url,
    stop: async () => {
      child.kill("SIGTERM");
      await reader.cancel();
      await child.status;
    },
  };
}

async function profile(url: string, concurrency: number, dest: string): Promise<void> {
  const tmp = await Deno.makeTempDir({ prefix: "infermeter-fixture-" });
  // deno-fmt-ignore
  const r = await new Deno.Command(Deno.execPath(), {
    args: [
      "run", "-A", main, "profile", "--model", "sim-model", "--endpoint-type", "chat", "--streaming", "--url", url,
      "--synthetic-input-tokens-mean", "64", "--synthetic-input-tokens-stddev", "16", "--output-tokens-mean", "24",
      "--output-tokens-stddev", "8", "--extra-inputs", "ignore_eos:true", "--concurrency", String(concurrency),
      "--request-count", String(12 * concurrency), "--num-dataset-entries", "20", "--random-seed", "42",
      "--artifact-dir", tmp,
    ],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!r.success) throw new Error(`profile at concurrency ${concurrency} failed`);
  await Deno.mkdir(dest, { recursive: true });
  for (const name of KEEP) await Deno.copyFile(`${tmp}/${name}`, `${dest}/${name}`);
  await Deno.remove(tmp, { recursive: true });
}

await Deno.remove(out, { recursive: true }).catch(() => {});
const slow = await startSim([
  "--ttft",
  "40",
  "--itl",
  "6",
  "--ttft-jitter",
  "0.3",
  "--itl-jitter",
  "0.2",
  "--error-rate",
  "5",
]);
try {
  for (const c of [1, 2, 4]) await profile(slow.url, c, `${out}/sweep/c${c}`);
} finally {
  await slow.stop();
}
const fast = await startSim(["--ttft", "25", "--itl", "5", "--ttft-jitter", "0.3", "--itl-jitter", "0.2"]);
try {
  await profile(fast.url, 2, `${out}/faster`);
} finally {
  await fast.stop();
}
console.log(`wrote ${out}`);
