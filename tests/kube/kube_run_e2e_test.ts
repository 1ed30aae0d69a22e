/**
 * `kube run` against a real control plane: the test starts its own private instance of scripts/kube/testenv.sh
 * (etcd, kube-apiserver, kube-controller-manager with its Job controller; own ports and state directory, stopped at
 * the end) and plays the node with node_runner.ts; load goes to serve-sim on loopback. Skipped, with one line
 * saying why, when the control-plane binaries (`scripts/kube/testenv.sh build`) or etcd are missing.
 */
import assert from "node:assert/strict";
import { MAIN_TS, readJson, runCli, startSim, tempDir } from "../e2e/cli_harness.ts";
import { NodeRunner } from "./node_runner.ts";
import { type KubeConfig, loadKubeconfigFile } from "../../src/kube/kube_config.ts";
import { collectionOf, KubeApiError, KubeClient, type KubeObject, kubePaths } from "../../src/kube/kube_client.ts";
import { CHUNK_ANNOTATION, INDEX_LABEL } from "../../src/kube/records_channel.ts";
import { percentileSorted } from "../../src/metrics/stats.ts";
import { controlPlaneMissing, freePort, testenv } from "./testenv_harness.ts";

const skip = controlPlaneMissing();
if (skip !== undefined) console.error(`kube e2e skipped: ${skip}.`);

// Short prompts and answers (~0.3 s a request at the simulator's default pace): 10 requests a shard.
const LOAD = [
  "-m",
  "sim-model",
  "--concurrency",
  "4",
  "--request-count",
  "40",
  "--isl",
  "64",
  "--isl-stddev",
  "16",
  "--random-seed",
  "11",
  "--ui",
  "none",
];
/** Each run gets a fresh simulator with one seed: its answers depend only on the request bodies, not on history. */
const SIM = ["--seed", "5"];

/** Metrics whose per-request values depend only on what was sent and answered, not on timing. */
const CONTENT_METRICS = [
  "request_count",
  "completed_request_count",
  "request_error_rate",
  "input_sequence_length",
  "output_sequence_length",
  "output_token_count",
  "total_isl",
  "total_osl",
  "total_output_tokens",
  "usage_prompt_tokens",
  "usage_completion_tokens",
  "usage_total_tokens",
  "total_usage_prompt_tokens",
  "total_usage_completion_tokens",
  "http_req_data_sent",
];

type Export = Record<string, Record<string, number | string | null> | undefined>;

/** Every per-request metric's statistics recomputed from the JSONL export's records, against the summary's. */
async function assertStatsFromUnion(dir: string): Promise<number> {
  const summary = await readJson<Export>(`${dir}/profile_export_aiperf.json`);
  const values = new Map<string, number[]>();
  const lines = (await Deno.readTextFile(`${dir}/profile_export.jsonl`)).split("\n").filter((l) => l !== "");
  for (const line of lines) {
    const rec = JSON.parse(line) as { metrics: Record<string, { value: unknown }> };
    for (const [name, m] of Object.entries(rec.metrics)) {
      if (typeof m.value !== "number") continue;
      if (!values.has(name)) values.set(name, []);
      values.get(name)!.push(m.value);
    }
  }
  let checked = 0;
  for (const [name, vs] of values) {
    const s = summary[name];
    if (s === undefined || typeof s.p50 !== "number" || vs.length !== lines.length) continue;
    const sorted = vs.toSorted((a, b) => a - b);
    const want: Record<string, number> = {
      min: sorted[0],
      max: sorted.at(-1)!,
      avg: vs.reduce((a, b) => a + b, 0) / vs.length,
      p50: percentileSorted(sorted, 50),
      p90: percentileSorted(sorted, 90),
      p99: percentileSorted(sorted, 99),
    };
    for (const [stat, v] of Object.entries(want)) {
      const got = s[stat] as number;
      assert.ok(Math.abs(got - v) <= 1e-9 * Math.max(1, Math.abs(v)), `${name}.${stat}: export ${got}, union ${v}`);
    }
    checked++;
  }
  return checked;
}

interface ChunkObject {
  metadata: { labels: Record<string, string>; annotations: Record<string, string> };
  binaryData: Record<string, string>;
}

const asSa = (config: KubeConfig, token: string): KubeClient => new KubeClient({ ...config, token: () => token });

async function status(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 200;
  } catch (err) {
    if (err instanceof KubeApiError) return err.status;
    throw err;
  }
}

Deno.test({
  name: "kube run: 4 shards complete, Job 4/4, merged export equals one process's; a killed shard is a partial run",
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
    try {
      const kubeconfig = await testenv(["up"], env);
      const config = await loadKubeconfigFile(kubeconfig, undefined);
      client = new KubeClient(config);
      const runner = (killIndex?: number) =>
        new NodeRunner({
          config,
          caFile: `${env.KUBE_TESTENV_RUN}/pki/ca.crt`,
          exec: { infermeter: [Deno.execPath(), "run", "-A", MAIN_TS] },
          killIndex,
          workDir: `${dir.path}/node`,
          log: (l) => console.error(l),
        });
      const secret = `e2e-key-${crypto.randomUUID()}`;
      await client.create(kubePaths.secrets("default"), {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "llm-key" },
        stringData: { "api-key": secret },
      });

      {
        await using sim = await startSim(SIM);
        const one = await runCli(["profile", ...LOAD, "--url", sim.url, "--artifact-dir", `${dir.path}/one`], {
          cwd: dir.path,
          timeoutMs: 60_000,
        });
        assert.equal(one.code, 0, one.stderr);
      }

      const node = runner();
      await node.start();
      const kubeArgs = ["--shards", "4", "--kubeconfig", kubeconfig, "--run-name", "e2e-ok", "--keep", ...LOAD];
      const kube = await (async () => {
        await using sim = await startSim(SIM);
        return await runCli(
          ["kube", "run", ...kubeArgs, "--api-key-secret", "llm-key", "--url", sim.url, "--artifact-dir", "kube"],
          { cwd: dir.path, timeoutMs: 120_000 },
        );
      })();
      await node.stop();
      assert.equal(kube.code, 0, kube.stderr);

      // The Job ran every index to completion.
      const job = await client.get<
        { status: { succeeded: number; completedIndexes: string; conditions: { type: string; status: string }[] } }
      >(`${kubePaths.jobs("default")}/e2e-ok`);
      assert.equal(job.status.succeeded, 4);
      assert.equal(job.status.completedIndexes, "0-3");
      assert.ok(job.status.conditions.some((c) => c.type === "Complete" && c.status === "True"));

      // The merged export equals the one-process run wherever the records are equal by construction (same seed,
      // same dataset, same answers), statistics included: they are computed over the union, not averaged.
      const a = await readJson<Export>(`${dir.path}/one/profile_export_aiperf.json`);
      const b = await readJson<Export>(`${dir.path}/kube/profile_export_aiperf.json`);
      assert.equal(b.request_count?.avg, 40);
      for (const m of CONTENT_METRICS) {
        assert.ok(a[m] !== undefined, `${m} is in the one-process export`);
        assert.deepEqual(b[m], a[m], m);
      }
      // Every per-request metric's statistics, timing ones included, are those of the union of the records.
      assert.ok(await assertStatsFromUnion(`${dir.path}/kube`) >= 10);
      const report = await readJson<{ partial: boolean; merged: number[] }>(`${dir.path}/kube/kube_run.json`);
      assert.deepEqual(report.merged, [0, 1, 2, 3]);
      assert.equal(report.partial, false);

      // The records the shards sent home (kept with --keep): all 40, 10 from each index.
      const chunks = await client.get<{ items: ChunkObject[] }>(
        `${kubePaths.configMaps("default")}?labelSelector=${
          encodeURIComponent("infermeter.dev/run=e2e-ok,infermeter.dev/role=records")
        }`,
      );
      const perIndex = [0, 0, 0, 0];
      for (const c of chunks.items) {
        const gz = Uint8Array.from(atob(c.binaryData["records.jsonl.gz"]), (ch) => ch.charCodeAt(0));
        const text = await new Response(new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
        perIndex[Number(c.metadata.labels[INDEX_LABEL])] += text.split("\n").filter((l) => l.startsWith('{"t":"r"'))
          .length;
        assert.ok(c.metadata.annotations[CHUNK_ANNOTATION] !== undefined);
      }
      assert.deepEqual(perIndex, [10, 10, 10, 10]);

      // No credential in any object of the run (the Secret is only referenced), nor in the artifacts.
      const objects: unknown[] = [];
      const sel = `?labelSelector=${encodeURIComponent("infermeter.dev/run=e2e-ok")}`;
      for (const p of ["configMaps", "serviceAccounts", "roles", "roleBindings", "jobs", "pods"] as const) {
        objects.push(await client.get(`${kubePaths[p]("default")}${sel}`));
      }
      const dump = JSON.stringify(objects);
      assert.ok(dump.includes('"secretKeyRef"'), "the pods take the key from the Secret");
      assert.ok(!dump.includes(secret), "a credential is in the run's objects");
      for await (const f of Deno.readDir(`${dir.path}/kube`)) {
        if (f.isFile) assert.ok(!(await Deno.readTextFile(`${dir.path}/kube/${f.name}`)).includes(secret), f.name);
      }

      // The pods' rights are the Role's and no more. Watching one ConfigMap by a metadata.name field selector is
      // authorized by the Role's resourceNames; listing or watching the collection is not.
      const token = await client.create<{ status: { token: string } }>(
        `${kubePaths.serviceAccounts("default")}/e2e-ok/token`,
        { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 600 } },
      );
      const sa = asSa(config, token.status.token);
      try {
        const cms = kubePaths.configMaps("default");
        const watchOne = async () => {
          const stop = new AbortController();
          for await (
            const _ of sa.watch(cms, { query: "fieldSelector=metadata.name%3De2e-ok-start", signal: stop.signal })
          ) {
            stop.abort();
          }
        };
        const watchAll = async () => {
          for await (const _ of sa.watch(cms, { timeoutSeconds: 1 })) break;
        };
        assert.equal(await status(sa.get(`${cms}/e2e-ok-config`)), 200);
        assert.equal(await status(watchOne()), 200);
        assert.equal(await status(watchAll()), 403);
        assert.equal(await status(sa.get(cms)), 403);
        assert.equal(await status(sa.get(`${cms}/kube-root-ca.crt`)), 403);
        assert.equal(await status(sa.mergePatch(`${cms}/e2e-ok-config`, { data: { x: "1" } })), 403);
        assert.equal(await status(sa.get(`${kubePaths.secrets("default")}/llm-key`)), 403);
        assert.equal(await status(sa.delete(`${kubePaths.jobs("default")}/e2e-ok`)), 403);
      } finally {
        sa.close();
      }

      // Manifests applied by other means (kube generate | kubectl apply): `kube start` writes the start once the
      // shards are ready, `kube collect` (profile options from the run's ConfigMap) merges them like kube run.
      {
        await using sim = await startSim(SIM);
        const gen = await runCli([
          "kube",
          "generate",
          "--shards",
          "4",
          "--run-name",
          "e2e-gen",
          ...LOAD,
          "--url",
          sim.url,
        ], {
          cwd: dir.path,
        });
        assert.equal(gen.code, 0, gen.stderr);
        const yaml = await import("js-yaml");
        for (const doc of yaml.loadAll(gen.stdout) as { kind: string }[]) {
          if (doc !== null) await client.create(collectionOf(doc.kind, "default"), doc);
        }
        const gnode = runner();
        await gnode.start();
        const start = await runCli(["kube", "start", "--run-name", "e2e-gen", "--kubeconfig", kubeconfig], {
          cwd: dir.path,
          timeoutMs: 60_000,
        });
        assert.equal(start.code, 0, start.stderr);
        const collect = await runCli(
          ["kube", "collect", "--run-name", "e2e-gen", "--kubeconfig", kubeconfig, "--artifact-dir", "gen"],
          { cwd: dir.path, timeoutMs: 60_000 },
        );
        await gnode.stop();
        assert.equal(collect.code, 0, collect.stderr);
        const g = await readJson<Export>(`${dir.path}/gen/profile_export_aiperf.json`);
        for (const m of CONTENT_METRICS) assert.deepEqual(g[m], a[m], m);
        assert.equal(await client.tryGet(`${kubePaths.jobs("default")}/e2e-gen`), undefined);
      }

      // A shard killed after the start: the others run to their end, the run is partial and says so.
      const killer = runner(1);
      await killer.start();
      const partial = await (async () => {
        await using sim = await startSim(SIM);
        return await runCli(
          ["kube", "run", ...kubeArgs.filter((a) => a !== "--keep").map((a) => a === "e2e-ok" ? "e2e-kill" : a)]
            .concat(["--url", sim.url, "--artifact-dir", "kill"]),
          { cwd: dir.path, timeoutMs: 120_000 },
        );
      })();
      await killer.stop();
      assert.equal(partial.code, 1, partial.stderr);
      const last = partial.stderr.trim().split("\n").at(-1)!;
      assert.match(last, /partial run: 3 of 4 shards ran to their end; index 1 lost its pod/);
      const killed = await readJson<
        { partial: boolean; notCompleted: number[]; merged: number[]; lost: { index: number; records: number }[] }
      >(`${dir.path}/kill/kube_run.json`);
      assert.deepEqual(killed.notCompleted, [1]);
      assert.deepEqual(killed.merged, [0, 2, 3]);
      assert.deepEqual(killed.lost.map((l) => l.index), [1]);
      // What the killed shard uploaded before it died is merged with the others' records.
      const k = await readJson<Export>(`${dir.path}/kill/profile_export_aiperf.json`);
      assert.equal(k.request_count?.avg, 30 + killed.lost[0].records);
      // Cleaned up (no --keep): none of the run's objects is left.
      assert.equal(await client.tryGet(`${kubePaths.jobs("default")}/e2e-kill`), undefined);
      const left = await client.get<{ items: KubeObject[] }>(
        `${kubePaths.configMaps("default")}?labelSelector=${encodeURIComponent("infermeter.dev/run=e2e-kill")}`,
      );
      assert.deepEqual(left.items.map((i) => i.metadata?.name), []);
      assert.equal(await client.tryGet(`${kubePaths.roles("default")}/e2e-kill`), undefined);
      assert.equal(await client.tryGet(`${kubePaths.serviceAccounts("default")}/e2e-kill`), undefined);
    } finally {
      client?.close();
      await testenv(["down"], env);
    }
  },
});
