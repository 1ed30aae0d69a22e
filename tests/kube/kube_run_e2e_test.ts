/**
 * `kube run` against a real control plane (scripts/kube/testenv.sh: etcd, kube-apiserver, kube-controller-manager
 * with its Job controller) and the test node runner, load to serve-sim on loopback. Skipped, saying why, when the
 * control-plane binaries are not built (`scripts/kube/testenv.sh build`).
 */
import assert from "node:assert/strict";
import { MAIN_TS, readJson, runCli, startSim, tempDir } from "../e2e/cli_harness.ts";
import { NodeRunner } from "./node_runner.ts";
import { loadKubeconfigFile } from "../../src/kube/kube_config.ts";
import { KubeClient } from "../../src/kube/kube_client.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const TESTENV = Deno.env.get("KUBE_TESTENV_DIR") ?? `${ROOT}.kube-testenv`;
const built = (() => {
  try {
    Deno.statSync(`${TESTENV}/bin/kube-apiserver`);
    Deno.statSync(`${TESTENV}/bin/kube-controller-manager`);
    return true;
  } catch {
    return false;
  }
})();
if (!built) {
  console.error(`kube e2e skipped: no control plane built in ${TESTENV} (run scripts/kube/testenv.sh build).`);
}

async function testenv(cmd: "up" | "down"): Promise<string> {
  const out = await new Deno.Command("bash", { args: [`${ROOT}scripts/kube/testenv.sh`, cmd], stderr: "inherit" })
    .output();
  if (!out.success) throw new Error(`testenv.sh ${cmd} failed`);
  return new TextDecoder().decode(out.stdout).trim();
}

const LOAD = ["-m", "sim-model", "--concurrency", "4", "--request-count", "40", "--random-seed", "11", "--ui", "none"];

Deno.test({
  name: "kube run: 4 shards complete, Job 4/4, merged counts equal one process's; a killed shard is a partial run",
  ignore: !built,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    const kubeconfig = await testenv("up");
    await using sim = await startSim();
    await using dir = await tempDir();
    const config = await loadKubeconfigFile(kubeconfig, undefined);
    const client = new KubeClient(config);
    const runner = (killIndex?: number) =>
      new NodeRunner({
        config,
        caFile: `${TESTENV}/run/pki/ca.crt`,
        exec: { infermeter: [Deno.execPath(), "run", "-A", MAIN_TS] },
        killIndex,
        workDir: `${dir.path}/node`,
        log: (l) => console.error(l),
      });
    const url = ["--url", sim.url];
    try {
      const one = await runCli(["profile", ...LOAD, ...url, "--artifact-dir", `${dir.path}/one`], {
        cwd: dir.path,
        timeoutMs: 60_000,
      });
      assert.equal(one.code, 0, one.stderr);

      const node = runner();
      await node.start();
      const kube = await runCli(
        [
          "kube",
          "run",
          "--shards",
          "4",
          "--kubeconfig",
          kubeconfig,
          "--run-name",
          "e2e-ok",
          "--keep",
          ...LOAD,
          ...url,
          "--artifact-dir",
          `${dir.path}/kube`,
        ],
        { cwd: dir.path, timeoutMs: 180_000 },
      );
      await node.stop();
      assert.equal(kube.code, 0, kube.stderr);
      const job = await client.get<
        { status: { succeeded: number; completedIndexes: string; conditions: { type: string }[] } }
      >(
        "/apis/batch/v1/namespaces/default/jobs/e2e-ok",
      );
      assert.equal(job.status.succeeded, 4);
      assert.equal(job.status.completedIndexes, "0-3");
      assert.ok(job.status.conditions.some((c) => c.type === "Complete"));
      const a = await readJson<Record<string, { avg: number }>>(`${dir.path}/one/profile_export_aiperf.json`);
      const b = await readJson<Record<string, { avg: number }>>(`${dir.path}/kube/profile_export_aiperf.json`);
      assert.equal(b.request_count.avg, 40);
      assert.equal(b.request_count.avg, a.request_count.avg);
      const report = await readJson<{ partial: boolean; merged: number[] }>(`${dir.path}/kube/kube_run.json`);
      assert.deepEqual(report.merged, [0, 1, 2, 3]);
      assert.equal(report.partial, false);

      const killer = runner(1);
      await killer.start();
      const partial = await runCli(
        [
          "kube",
          "run",
          "--shards",
          "4",
          "--kubeconfig",
          kubeconfig,
          "--run-name",
          "e2e-kill",
          ...LOAD.map((v) => v === "40" ? "4000" : v),
          ...url,
          "--artifact-dir",
          `${dir.path}/kill`,
        ],
        { cwd: dir.path, timeoutMs: 180_000 },
      );
      await killer.stop();
      assert.equal(partial.code, 1, partial.stderr);
      assert.match(partial.stderr, /partial run: merged 3 of 4 shards; indexes 1 did not complete/);
      const killed = await readJson<{ partial: boolean; notCompleted: number[] }>(`${dir.path}/kill/kube_run.json`);
      assert.deepEqual(killed.notCompleted, [1]);
      // Cleaned up (no --keep): the Job is gone.
      assert.equal(await client.tryGet("/apis/batch/v1/namespaces/default/jobs/e2e-kill"), undefined);
    } finally {
      client.close();
      await testenv("down");
    }
  },
});
