import assert from "node:assert/strict";
import { ConfigError } from "../../src/config/config_error.ts";
import { parseProfileArgs } from "../../src/config/parse_profile_args.ts";
import { fakeIo } from "./_fake_io.ts";

async function problemsOf(argv: readonly string[]): Promise<readonly string[]> {
  try {
    await parseProfileArgs(argv, fakeIo());
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected ConfigError, got ${error}`);
    return error.problems;
  }
  assert.fail(`expected ${argv.join(" ")} to be rejected`);
}

const NO_EFFECT = "has no effect: it applies only to the agentic_replay timing mode, which --scenario " +
  "inferencex-agentx-mvp selects (AIPerf leaves it unused without that scenario too).";

Deno.test("without --scenario the agentic-replay options are checked as AIPerf does, each with a notice that it changes nothing", async () => {
  const { config, warnings } = await parseProfileArgs([
    "-m",
    "m",
    "--trajectory-start-min-ratio",
    "0",
    "--trajectory-start-max-ratio",
    "1",
    "--burst-phase-starts",
    "--system-idle-gap-cap-seconds",
    "10",
    "--agentic-warmup-grace-period",
    "5",
    "--no-allow-dataset-wrap",
  ], fakeIo());
  assert.equal(config.trajectoryStartMinRatio, 0);
  assert.equal(config.trajectoryStartMaxRatio, 1);
  assert.equal(config.burstPhaseStarts, true);
  assert.equal(config.systemIdleGapCapSeconds, 10);
  assert.equal(config.agenticWarmupGracePeriod, 5);
  assert.equal(config.allowDatasetWrap, false);
  assert.deepEqual(
    warnings.filter((w) => w.includes("agentic_replay")),
    [
      "--trajectory-start-min-ratio",
      "--trajectory-start-max-ratio",
      "--burst-phase-starts",
      "--system-idle-gap-cap-seconds",
      "--agentic-warmup-grace-period",
      "--no-allow-dataset-wrap",
    ].map((flag) => `${flag} ${NO_EFFECT}`),
  );
  // Left at their defaults (AIPerf's 0.25 and 0.75), they say nothing.
  const plain = await parseProfileArgs(["-m", "m"], fakeIo());
  assert.deepEqual([plain.config.trajectoryStartMinRatio, plain.config.trajectoryStartMaxRatio], [0.25, 0.75]);
  assert.equal(plain.warnings.filter((w) => w.includes("agentic_replay")).length, 0);
});

Deno.test("the agentic-replay options refuse what AIPerf refuses: ranges, min above max, the cache warm-up", async () => {
  assert.deepEqual(await problemsOf(["-m", "m", "--trajectory-start-min-ratio", "0.8"]), [
    "--trajectory-start-min-ratio (0.8) must be <= --trajectory-start-max-ratio (0.75).",
  ]);
  const [range] = await problemsOf(["-m", "m", "--trajectory-start-max-ratio", "1.5"]);
  assert.match(range, /--trajectory-start-max-ratio/);
  assert.match((await problemsOf(["-m", "m", "--system-idle-gap-cap-seconds", "-1"]))[0], /--system-idle-gap-cap/);
  assert.deepEqual(await problemsOf(["-m", "m", "--agentic-cache-warmup-duration", "30"]), [
    "--agentic-cache-warmup-duration requires the agentic_replay timing mode, which --scenario " +
    "inferencex-agentx-mvp selects; add it, or remove this option.",
  ]);
  assert.match((await problemsOf(["-m", "m", "--agentic-cache-warmup-duration", "0"]))[0], /--agentic-cache-warmup/);
});

const AGENTX = [
  "-m",
  "m",
  "--scenario",
  "inferencex-agentx-mvp",
  "--public-dataset",
  "semianalysis_cc_traces_weka_062126",
];

Deno.test("with --scenario inferencex-agentx-mvp the options are read without a notice, and the scenario's defaults fill in", async () => {
  const { config, warnings } = await parseProfileArgs(
    [...AGENTX, "--burst-phase-starts", "--concurrency", "4"],
    fakeIo(),
  );
  assert.deepEqual(warnings.filter((w) => w.includes("has no effect")), []);
  assert.equal(config.burstPhaseStarts, true);
  assert.deepEqual(
    [config.trajectoryStartMinRatio, config.trajectoryStartMaxRatio, config.systemIdleGapCapSeconds],
    [0, 1, 10],
  );
  assert.deepEqual([config.benchmarkDuration, config.streaming, config.cacheBust], [1800, true, "first_turn_prefix"]);
  assert.equal(config.extraInputs.ignore_eos, true);
  assert.equal(config.requestCount, undefined, "the run is bounded by its duration");
});

Deno.test("in the agentic replay mode the accelerated cache warm-up is refused as not built", async () => {
  const [problem] = await problemsOf([...AGENTX, "--agentic-cache-warmup-duration", "30"]);
  assert.match(problem, /--agentic-cache-warmup-duration .* is not built yet in the agentic replay mode/);
});

Deno.test("the scenario's ratios count in the min <= max check: a given max of 0 starts every trace at its start", async () => {
  const { config } = await parseProfileArgs([...AGENTX, "--trajectory-start-max-ratio", "0"], fakeIo());
  assert.deepEqual([config.trajectoryStartMinRatio, config.trajectoryStartMaxRatio], [0, 0]);
  assert.deepEqual(await problemsOf(["-m", "m", "--trajectory-start-max-ratio", "0"]), [
    "--trajectory-start-min-ratio (0.25) must be <= --trajectory-start-max-ratio (0).",
  ]);
});
