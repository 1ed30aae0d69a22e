/**
 * `kube run` on a real node: scripts/kube/testenv.sh node-up brings up the control plane with kube-scheduler and a
 * kubelet over containerd and runc, and imports the image scripts/image/build_oci.ts builds; the shards then run in
 * real containers (in-cluster configuration through the service address, the restricted security context
 * enforced, scheduling, logs through the kubelet, SIGTERM with its grace period). Opt-in, as it needs root and
 * changes host state (all undone by node-down, which always runs): INFERMETER_KUBE_REAL_NODE=1, after
 * `scripts/kube/testenv.sh build-node`. Every address is on this machine (a dummy interface and a pod bridge).
 */
import assert from "node:assert/strict";
import { MAIN_TS, readJson, readJsonl, runCli, spawnCli, tempDir } from "../e2e/cli_harness.ts";
import { loadKubeconfigFile } from "../../src/kube/kube_config.ts";
import { KubeClient, type KubeObject, kubePaths } from "../../src/kube/kube_client.ts";
import { readRequestJournal } from "../../src/sim/read_request_journal.ts";
import { VERSION } from "../../src/base/version.ts";
import { freePort, ROOT, TESTENV, testenv } from "./testenv_harness.ts";

const NODE_IP = Deno.env.get("KUBE_TESTENV_NODE_IP") ?? "10.231.0.1";

function skipReason(): string | undefined {
  if (Deno.env.get("INFERMETER_KUBE_REAL_NODE") !== "1") return "opt-in: INFERMETER_KUBE_REAL_NODE=1 (root)";
  if (Deno.uid() !== 0) return "needs root";
  for (const b of ["kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubelet"]) {
    try {
      Deno.statSync(`${TESTENV}/bin/${b}`);
    } catch {
      return `no ${b} in ${TESTENV}/bin (scripts/kube/testenv.sh build-node)`;
    }
  }
  return undefined;
}
const skip = skipReason();
if (skip !== undefined) console.error(`kube real-node e2e skipped: ${skip}.`);

async function sh(args: string[], env: Record<string, string> = {}): Promise<string> {
  const out = await new Deno.Command(args[0], { args: args.slice(1), env, stderr: "inherit" }).output();
  if (!out.success) throw new Error(`${args.join(" ")} failed`);
  return new TextDecoder().decode(out.stdout).trim();
}

/** serve-sim on the node's address (the pods' way to it), stopped on dispose. */
async function startNodeSim(args: string[]): Promise<{ url: string } & AsyncDisposable> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN_TS, "serve-sim", "--host", NODE_IP, "--port", "0", ...args],
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let url: string | undefined;
  while (url === undefined) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`serve-sim on ${NODE_IP} did not start`);
    text += value;
    url = /serve-sim listening on (http:\/\/\S+)/.exec(text)?.[1];
  }
  void (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })().catch(() => {});
  return {
    url,
    [Symbol.asyncDispose]: async () => {
      try {
        child.kill("SIGTERM");
      } catch { /* gone */ }
      await child.status;
    },
  };
}

const until = async (what: string, test: () => Promise<boolean>, ms = 120_000) => {
  const end = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
};

Deno.test({
  name: "kube run on a real kubelet: real containers, in-cluster config, restricted pods, logs, SIGTERM grace",
  ignore: skip !== undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    await using dir = await tempDir();
    const env = {
      KUBE_TESTENV_DIR: TESTENV,
      KUBE_TESTENV_NODE_RUN: `${dir.path}/node`,
      KUBE_TESTENV_API_PORT: String(freePort()),
      KUBE_TESTENV_ETCD_PORT: String(freePort(true)),
    };
    const archive = `${dir.path}/infermeter.oci.tar`;
    await sh([
      Deno.execPath(),
      "run",
      "-A",
      `${ROOT}scripts/image/build_oci.ts`,
      "--out",
      `${dir.path}/image`,
      "--archive",
      archive,
    ]);
    let client: KubeClient | undefined;
    try {
      const kubeconfig = await testenv(["node-up", archive], env);
      const config = await loadKubeconfigFile(kubeconfig, undefined);
      client = new KubeClient(config);
      const ns = "bench";
      await client.create(kubePaths.namespaces(), {
        apiVersion: "v1",
        kind: "Namespace",
        metadata: { name: ns, labels: { "pod-security.kubernetes.io/enforce": "restricted" } },
      });
      const log = async (pod: string) => {
        const res = await fetch(`${config.server}/api/v1/namespaces/${ns}/pods/${pod}/log`, {
          headers: { Authorization: `Bearer ${config.token?.()}` },
          client: Deno.createHttpClient({
            caCerts: [await Deno.readTextFile(`${env.KUBE_TESTENV_NODE_RUN}/pki/ca.crt`)],
          }),
        });
        return await res.text();
      };

      // The image's infermeter runs in a container, under the restricted profile.
      const image = `infermeter:${VERSION}`;
      await client.create(kubePaths.pods(ns), {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "version" },
        spec: {
          restartPolicy: "Never",
          securityContext: { runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: "RuntimeDefault" } },
          containers: [{
            name: "v",
            image,
            imagePullPolicy: "Never",
            args: ["--version"],
            securityContext: {
              allowPrivilegeEscalation: false,
              readOnlyRootFilesystem: true,
              capabilities: { drop: ["ALL"] },
            },
            volumeMounts: [{ name: "tmp", mountPath: "/tmp" }],
          }],
          volumes: [{ name: "tmp", emptyDir: {} }],
        },
      });
      await until(
        "the version pod",
        async () =>
          (await client!.get<{ status?: { phase?: string } }>(`${kubePaths.pods(ns)}/version`)).status?.phase ===
            "Succeeded",
      );
      assert.match(await log("version"), new RegExp(`^${VERSION.replaceAll(".", "\\.")}\\s*$`, "m"));

      // A run of 2 shards in real containers.
      const common = [
        "kube",
        "run",
        "--shards",
        "2",
        "-n",
        ns,
        "--image",
        image,
        "--image-pull-policy",
        "Never",
        "--kubeconfig",
        kubeconfig,
        "-m",
        "sim-model",
        "--isl",
        "64",
        "--osl",
        "8",
        "--concurrency",
        "4",
        "--random-seed",
        "11",
        "--ui",
        "none",
        "--upload-interval",
        "1",
      ];
      {
        await using sim = await startNodeSim(["--seed", "5"]);
        const run = await runCli([
          ...common,
          "--run-name",
          "real",
          "--keep",
          "--request-count",
          "40",
          "--url",
          sim.url,
          "--artifact-dir",
          "real",
        ], { cwd: dir.path, timeoutMs: 300_000 });
        assert.equal(run.code, 0, run.stderr);
        const report = await readJson<{ merged: number[]; jobCondition: string }>(`${dir.path}/real/kube_run.json`);
        assert.deepEqual(report.merged, [0, 1]);
        assert.equal(report.jobCondition, "Complete");
        assert.equal((await readJsonl(`${dir.path}/real/profile_export.jsonl`)).length, 40);
        const pods = await client.get<{ items: KubeObject[] }>(
          `${kubePaths.pods(ns)}?labelSelector=${encodeURIComponent("infermeter.dev/run=real")}`,
        );
        assert.equal(pods.items.length, 2);
        assert.match(await log(pods.items[0].metadata!.name!), /shard \d of 2: preparing/);
      }

      // A pod deleted mid-run gets SIGTERM and its grace period: its shard uploads everything it measured.
      {
        const journal = `${dir.path}/journal.jsonl`;
        await using sim = await startNodeSim(["--seed", "5", "--record-requests", journal]);
        await using cli = spawnCli([
          ...common,
          "--run-name",
          "term",
          "--benchmark-duration",
          "20",
          "--url",
          sim.url,
          "--artifact-dir",
          "term",
        ], { cwd: dir.path, timeoutMs: 300_000 });
        await until("the shared start", () => Promise.resolve(/shared start at/.test(cli.stderrSoFar())));
        await new Promise((r) => setTimeout(r, 4000));
        const pods = await client.get<
          { items: (KubeObject & { metadata: { annotations: Record<string, string> } })[] }
        >(
          `${kubePaths.pods(ns)}?labelSelector=${encodeURIComponent("infermeter.dev/run=term")}`,
        );
        const one = pods.items.find((p) => p.metadata.annotations["batch.kubernetes.io/job-completion-index"] === "1")!;
        await client.delete(`${kubePaths.pods(ns)}/${one.metadata.name}`);
        const run = await cli.result;
        assert.equal(run.code, 1, run.stderr);
        const report = await readJson<{ lost: { index: number; reason: string; records: number }[] }>(
          `${dir.path}/term/kube_run.json`,
        );
        assert.equal(report.lost[0].index, 1);
        assert.match(report.lost[0].reason, /was stopped by SIGTERM/);
        const records = await readJsonl(`${dir.path}/term/profile_export.jsonl`);
        const received = (await readRequestJournal(journal)).filter((e) => e.method === "POST").length;
        assert.equal(records.length, received, "the stopped shard uploaded everything, its cut requests included");
      }
    } finally {
      client?.close();
      await testenv(["node-down"], env).catch((e) => console.error(e));
    }
  },
});
