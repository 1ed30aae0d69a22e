/**
 * `--model org/name` with the model's tokenizer in a local Hugging Face cache (HF_HUB_CACHE): the run counts with
 * it, offline, and says so; with an empty cache it names the builtin tokenizer and where the files belong.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertExit, readJson, runCli, startSim, tempDir } from "./cli_harness.ts";

const TINY = new URL("../fixtures/tiny_bpe/", import.meta.url);
const ARGS = ["--ui", "none", "-m", "acme/tiny", "--isl", "20", "--osl", "3", "--request-count", "2"];

Deno.test("profile counts with the model's own tokenizer found in the local Hugging Face cache", async () => {
  await using tmp = await tempDir();
  await using sim = await startSim(["--fast"]);
  const snapshot = join(tmp.path, "hub", "models--acme--tiny", "snapshots", "abc123");
  await Deno.mkdir(snapshot, { recursive: true });
  await Deno.copyFile(new URL("tokenizer.json", TINY), join(snapshot, "tokenizer.json"));
  await Deno.copyFile(new URL("tokenizer_config.json", TINY), join(snapshot, "tokenizer_config.json"));

  // A first run on a machine starts from light tables and caches the full ones once its results are written.
  const cache = join(tmp.path, "cache");
  const tableFiles = () => {
    try {
      return [...Deno.readDirSync(cache)].map((e) => e.name).filter((n) => n.startsWith("hf-bpe-"));
    } catch {
      return [];
    }
  };
  const env = { HF_HUB_CACHE: join(tmp.path, "hub"), INFERMETER_CACHE_DIR: cache };
  const run = await runCli(["profile", ...ARGS, "--url", sim.url], { cwd: tmp.path, env });
  assertExit(run, 0);
  assert.match(run.stderr, /Tokenizer: acme\/tiny's own, from .*models--acme--tiny\/snapshots\/abc123/);
  assert.match(run.stderr, /Tokenizer .*abc123 runs on infermeter byte-level BPE/);
  const summary = await readJson<{ infermeter: { tokenizer: string } }>(
    join(tmp.path, "artifacts/acme_tiny-chat-concurrency1/profile_export_aiperf.json"),
  );
  assert.equal(summary.infermeter.tokenizer, snapshot);
  const written = tableFiles();
  assert.equal(written.length, 1, "the run cached the tokenizer's tables");
  const before = Deno.statSync(join(cache, written[0])).mtime?.getTime();
  const again = await runCli(["profile", ...ARGS, "--url", sim.url, "--artifact-dir", join(tmp.path, "again")], {
    cwd: tmp.path,
    env,
  });
  assertExit(again, 0);
  assert.deepEqual(tableFiles(), written);
  assert.equal(Deno.statSync(join(cache, written[0])).mtime?.getTime(), before, "a later run reads them");
  const isl = async (dir: string) =>
    (await readJson<{ input_sequence_length: { avg: number } }>(join(dir, "profile_export_aiperf.json")))
      .input_sequence_length.avg;
  assert.equal(await isl(join(tmp.path, "artifacts/acme_tiny-chat-concurrency1")), 20);
  assert.equal(await isl(join(tmp.path, "again")), 20);

  await using empty = await tempDir();
  const fallback = await runCli(["profile", ...ARGS, "--url", sim.url], {
    cwd: empty.path,
    env: { HF_HUB_CACHE: join(empty.path, "no-cache") },
  });
  assertExit(fallback, 0);
  // One short line on the console; where to put the model's files is in the log.
  const notice = fallback.stderr.split("\n").find((l) => l.includes("Tokenizer: builtin (o200k_base)"))!;
  assert.match(notice, /Tokenizer: builtin \(o200k_base\), acme\/tiny's own not in the HF cache/);
  assert.ok(notice.replace(/^\S+ INFO +/, "").length <= 120, notice);
  const log = await Deno.readTextFile(join(empty.path, "artifacts/acme_tiny-chat-concurrency1/logs/infermeter.log"));
  assert.match(log, /no-cache\/models--acme--tiny\/snapshots\/<revision>/);
});
