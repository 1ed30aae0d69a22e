/**
 * `kube run` as a cluster operator would meet it, against a real control plane (a private scripts/kube/testenv.sh
 * instance; node_runner.ts plays the node): a namespace enforcing the restricted Pod Security level; a user who may
 * not create Roles gets the preflight error and nothing is left; Ctrl-C stops a running run within 10 s with its
 * results; a shard killed mid-run loses at most one upload interval, one stopped with SIGTERM loses nothing; a shard
 * whose clock runs 300 ms ahead (libfaketime) is measured and corrected. Skipped, with one line saying why, without
 * the control-plane binaries, etcd or libfaketime.
 */
import assert from "node:assert/strict";
import { MAIN_TS, readJson, readJsonl, runCli, spawnCli, startSim, tempDir } from "../e2e/cli_harness.ts";
import { NodeRunner } from "./node_runner.ts";
import { loadKubeconfigFile } from "../../src/kube/kube_config.ts";
import { KubeClient, type KubeObject, kubePaths } from "../../src/kube/kube_client.ts";
import { readRequestJournal } from "../../src/sim/read_request_journal.ts";
import { controlPlaneMissing, freePort, testenv } from "./testenv_harness.ts";

const FAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

function skipReason(): string | undefined {
  const missing = controlPlaneMissing();
  if (missing !== undefined) return missing;
  try {
    Deno.statSync(FAKETIME);
  } catch {
    return "no libfaketime (apt-get install libfaketime)";
  }
  return undefined;
}
const skip = skipReason();
if (skip !== undefined) console.error(`kube cluster e2e skipped: ${skip}.`);

const NS = "bench";
const LOAD = ["-m", "sim-model", "--isl", "64", "--osl", "8", "--random-seed", "11", "--ui", "none"];
type Export = Record<string, Record<string, number> | undefined>;
interface KubeRunJson {
  partial: boolean;
  starts: { index: number; startEpochMs: number; latenessMs: number }[];
  merged: number[];
  lost: { index: number; reason: string; records: number }[];
  clocks: { index: number; offsetMs: number | null; uncertaintyMs: number | null }[];
  startSpreadMs?: number;
}

Deno.test({
  name: "kube run in a restricted namespace: preflight, cancel, lost and stopped shards, a skewed clock",
  ignore: skip !== undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    await using dir = await tempDir();
    const env = {
      KUBE_TESTENV_RUN: `${dir.path}/testenv`,
      KUBE_TESTENV_API_PORT: String(freePort()),
      KUBE_TESTENV_ETCD_PORT: String(freePort(true)),
    };
    let client: KubeClient | undefined;
    let node: NodeRunner | undefined;
    try {
      const kubeconfig = await testenv(["up"], env);
      const config = await loadKubeconfigFile(kubeconfig, undefined);
      client = new KubeClient(config);
      await client.create(kubePaths.namespaces(), {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: NS, labels: { "pod-security.kubernetes.io/enforce": "restricted" } },
      });
      // Index 0's clock runs 300 ms ahead of everyone's.
      const skewed = (i: number) => i === 0 ? { LD_PRELOAD: FAKETIME, FAKETIME: "+0.3" } : undefined;
      const runner = (o: Partial<ConstructorParameters<typeof NodeRunner>[0]> = {}) =>
        new NodeRunner({
          config,
          caFile: `${env.KUBE_TESTENV_RUN}/pki/ca.crt`,
          exec: { infermeter: [Deno.execPath(), "run", "-A", MAIN_TS] },
          workDir: `${dir.path}/node`,
          log: (l) => console.error(l),
          ...o,
        });
      const kube = (name: string, extra: string[]) => [
        "kube",
        "run",
        "-n",
        NS,
        "--kubeconfig",
        kubeconfig,
        "--run-name",
        name,
        "--upload-interval",
        "1",
        "--start-delay",
        "1",
        ...LOAD,
        ...extra,
      ];
      const left = async (run: string) => {
        const sel = `?labelSelector=${encodeURIComponent(`infermeter.dev/run=${run}`)}`;
        const names: string[] = [];
        for (const p of ["configMaps", "serviceAccounts", "roles", "roleBindings", "jobs"] as const) {
          const list = await client!.get<{ items: KubeObject[] }>(`${kubePaths[p](NS)}${sel}`);
          names.push(...list.items.map((i) => `${p}/${i.metadata?.name}`));
        }
        return names;
      };

      // 1. Restricted namespace, a skewed shard, records uploaded during the run.
      node = runner({ envFor: skewed });
      await node.start();
      {
        await using sim = await startSim(["--seed", "5"]);
        const run = await runCli(
          [...kube("skew", ["--shards", "2", "--keep"]), "--concurrency", "4", "--benchmark-duration", "3"]
            .concat(["--url", sim.url, "--artifact-dir", "skew"]),
          { cwd: dir.path, timeoutMs: 120_000 },
        );
        assert.equal(run.code, 0, run.stderr);
        assert.match(run.stderr, /preflight: Kubernetes v1\.\d+.*namespace bench \(Pod Security: restricted\)/);
        const report = await readJson<KubeRunJson>(`${dir.path}/skew/kube_run.json`);
        const [c0, c1] = report.clocks;
        assert.ok(c0.offsetMs !== null && c1.offsetMs !== null, JSON.stringify(report.clocks));
        // The coordinator's clock minus shard 0's: about −300 ms, within its bound (plus the skew's own jitter).
        assert.ok(Math.abs(c0.offsetMs + 300 - (c1.offsetMs ?? 0)) <= c0.uncertaintyMs! + c1.uncertaintyMs! + 20);
        // Corrected, the shards' first requests are as close as the offsets' bounds and each shard's lateness allow
        // (a busy machine wakes a shard late; it says by how much); uncorrected they would be 300 ms apart.
        const late = Math.max(...report.starts.map((x) => x.latenessMs));
        const allowed = c0.uncertaintyMs! + c1.uncertaintyMs! + late + 50;
        const spread = report.startSpreadMs ?? Infinity;
        assert.ok(spread <= allowed && spread < 250, `first requests ${spread} ms apart, allowed ${allowed} ms`);
        const summary = await readJson<Export>(`${dir.path}/skew/profile_export_aiperf.json`);
        const duration = summary.benchmark_duration?.avg ?? 0;
        assert.ok(duration > 2.8 && duration < 3 + spread / 1000 + 0.25, `profiling window ${duration} s (3 s asked)`);
        // Chunks uploaded while the shards ran: more than one per index.
        const chunks = await client.get<{ items: KubeObject[] }>(
          `${kubePaths.configMaps(NS)}?labelSelector=${
            encodeURIComponent("infermeter.dev/run=skew,infermeter.dev/role=records")
          }`,
        );
        assert.ok(chunks.items.length >= 4, `${chunks.items.length} chunks`);
        // The Job owns every other object of the run: deleting it alone removes them (the garbage collector).
        await client.delete(`${kubePaths.jobs(NS)}/skew`);
        for (let i = 0; i < 100 && (await left("skew")).length > 0; i++) await new Promise((r) => setTimeout(r, 200));
        assert.deepEqual(await left("skew"), []);
      }
      await node.stop();

      // 2. A user who may not create Roles: the preflight names it, and nothing is created.
      await client.create(kubePaths.serviceAccounts(NS), { metadata: { name: "limited" } });
      await client.create(kubePaths.roles(NS), {
        metadata: { name: "limited" },
        rules: [
          { apiGroups: [""], resources: ["configmaps", "serviceaccounts", "events"], verbs: ["*"] },
          { apiGroups: ["batch"], resources: ["jobs"], verbs: ["*"] },
          { apiGroups: ["rbac.authorization.k8s.io"], resources: ["rolebindings"], verbs: ["*"] },
          { apiGroups: ["rbac.authorization.k8s.io"], resources: ["roles"], verbs: ["get", "list", "delete"] },
        ],
      });
      await client.create(kubePaths.roleBindings(NS), {
        metadata: { name: "limited" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "limited" },
        subjects: [{ kind: "ServiceAccount", name: "limited", namespace: NS }],
      });
      const token = await client.create<{ status: { token: string } }>(
        `${kubePaths.serviceAccounts(NS)}/limited/token`,
        { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 600 } },
      );
      const limited = `${dir.path}/limited.kubeconfig`;
      await Deno.writeTextFile(
        limited,
        (await Deno.readTextFile(kubeconfig)).replace(/token: .*/, `token: ${token.status.token}`),
      );
      {
        const run = await runCli(
          [...kube("norole", ["--shards", "2"]), "--request-count", "4", "--url", "http://127.0.0.1:9"]
            .map((a) => a === kubeconfig ? limited : a),
          { cwd: dir.path, timeoutMs: 60_000 },
        );
        assert.equal(run.code, 2, run.stderr);
        assert.match(
          run.stderr,
          /preflight: you may not create roles\.rbac\.authorization\.k8s\.io in namespace bench/,
        );
        assert.match(run.stderr, /--service-account/);
        assert.deepEqual(await left("norole"), []);
      }

      // 3. Ctrl-C after the start: every shard stops, uploads, and the run is exported as cancelled, within 10 s.
      node = runner();
      await node.start();
      {
        await using sim = await startSim(["--seed", "5"]);
        await using cli = spawnCli(
          [...kube("cancel", ["--shards", "2"]), "--concurrency", "4", "--benchmark-duration", "120"]
            .concat(["--url", sim.url, "--artifact-dir", "cancel"]),
          { cwd: dir.path, timeoutMs: 120_000 },
        );
        for (let i = 0; i < 600 && !/shared start at/.test(cli.stderrSoFar()); i++) {
          await new Promise((r) => setTimeout(r, 100));
        }
        await new Promise((r) => setTimeout(r, 3000));
        const at = performance.now();
        cli.kill("SIGINT");
        const run = await cli.result;
        const took = performance.now() - at;
        assert.equal(run.code, 130, run.stderr);
        assert.ok(took < 10_000, `stopped in ${took.toFixed(0)} ms`);
        const records = await readJsonl(`${dir.path}/cancel/profile_export.jsonl`);
        assert.ok(records.length > 4, `${records.length} records`);
        assert.equal(new Set(records.map((r) => r.record.metadata.worker_id)).size, 2);
        assert.deepEqual(await left("cancel"), []);
      }
      await node.stop();

      // 4. A shard killed mid-run loses at most its last interval; one stopped with SIGTERM loses nothing.
      for (const signal of ["SIGKILL", "SIGTERM"] as const) {
        node = runner({ killIndex: 1, killAfterStartMs: 2500, killSignal: signal });
        await node.start();
        const journal = `${dir.path}/journal-${signal}.jsonl`;
        const name = `lost-${signal.toLowerCase()}`;
        const run = await (async () => {
          await using sim = await startSim(["--seed", "5", "--record-requests", journal]);
          return await runCli(
            [...kube(name, ["--shards", "2"]), "--concurrency", "4", "--benchmark-duration", "5"]
              .concat(["--url", sim.url, "--artifact-dir", name]),
            { cwd: dir.path, timeoutMs: 120_000 },
          );
        })();
        await node.stop();
        assert.equal(run.code, 1, run.stderr);
        assert.match(run.stderr, /partial run: 1 of 2 shards ran to their end; index 1 /);
        const report = await readJson<KubeRunJson>(`${dir.path}/${name}/kube_run.json`);
        assert.deepEqual(report.lost.map((l) => l.index), [1]);
        assert.ok(report.lost[0].records > 0, "what the lost shard uploaded is kept");
        const records = await readJsonl(`${dir.path}/${name}/profile_export.jsonl`);
        const received = (await readRequestJournal(journal)).filter((e) => e.method === "POST").length;
        const perSecond = records.filter((r) => r.record.metadata.worker_id === "worker_0").length / 5;
        if (signal === "SIGTERM") {
          assert.match(report.lost[0].reason, /was stopped by SIGTERM/);
          assert.equal(records.length, received, "a stopped shard uploads everything, its cut requests included");
        } else {
          // One upload interval (1 s) of one shard's requests, plus its requests in flight.
          const bound = Math.ceil(perSecond * 1.5) + 2;
          assert.ok(received - records.length <= bound, `lost ${received - records.length}, bound ${bound}`);
        }
        assert.deepEqual(await left(name), []);
      }
    } finally {
      await node?.stop().catch(() => {});
      client?.close();
      await testenv(["down"], env);
    }
  },
});
