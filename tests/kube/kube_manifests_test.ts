import assert from "node:assert/strict";
import {
  defaultShardResources,
  kubeManifests,
  type KubeRunSpec,
  manifestsYaml,
  ownedBy,
  parseToleration,
  validateRunSpec,
} from "../../src/kube/kube_manifests.ts";
import { podSecurityViolations } from "../../src/kube/pod_security.ts";
import { shardConfigYaml } from "../../src/kube/shard_config.ts";
import { parseProfileArgs } from "../../src/config/parse_profile_args.ts";
import { splitKubeArgs } from "../../src/cli/kube.ts";

const io = { env: {}, readTextFile: Deno.readTextFileSync, isTty: false };
const SECRET = "sk-very-secret-value-123";

async function spec(extra: string[] = []): Promise<KubeRunSpec> {
  const parsed = await parseProfileArgs(
    ["-m", "m1", "--url", "http://127.0.0.1:8000", "--random-seed", "5", ...extra],
    io,
  );
  return {
    run: "infermeter-abc",
    namespace: "bench",
    shards: 4,
    image: "infermeter:test",
    configYaml: shardConfigYaml(parsed),
    apiKeySecret: { name: "llm-key", key: "api-key" },
  };
}

Deno.test("kube manifests: Indexed Job, N completions and parallelism, no restart, no index retried", async () => {
  const ms = kubeManifests(await spec());
  assert.deepEqual(ms.map((m) => m.kind), ["ConfigMap", "ConfigMap", "ServiceAccount", "Role", "RoleBinding", "Job"]);
  const job = ms[5] as unknown as { spec: Record<string, unknown> & { template: { spec: Record<string, unknown> } } };
  assert.equal(job.spec.completionMode, "Indexed");
  assert.equal(job.spec.completions, 4);
  assert.equal(job.spec.parallelism, 4);
  assert.equal(job.spec.backoffLimitPerIndex, 0);
  assert.equal(job.spec.template.spec.restartPolicy, "Never");
  assert.equal(job.spec.template.spec.serviceAccountName, "infermeter-abc");
  for (const m of ms) assert.equal(m.metadata.namespace, "bench");
});

Deno.test("kube manifests: the Role grants only what shards use, by name where the API allows", async () => {
  const role = kubeManifests(await spec())[3] as unknown as { rules: Record<string, unknown>[] };
  assert.deepEqual(role.rules, [
    { apiGroups: [""], resources: ["configmaps"], resourceNames: ["infermeter-abc-config"], verbs: ["get"] },
    {
      apiGroups: [""],
      resources: ["configmaps"],
      resourceNames: ["infermeter-abc-start"],
      verbs: ["get", "watch", "patch"],
    },
    { apiGroups: [""], resources: ["configmaps"], verbs: ["create"] },
  ]);
});

Deno.test("kube manifests: the API key is a Secret reference, never a value", async () => {
  const yaml = await manifestsYaml(kubeManifests(await spec(["--api-key", SECRET])));
  assert.ok(!yaml.includes(SECRET));
  assert.match(yaml, /secretKeyRef:\n\s+name: llm-key\n\s+key: api-key/);
  assert.ok(!/api_key:/.test(yaml.replace("# api_key: ~", "")));
});

Deno.test("kube manifests: a credential header or URL user-info is refused, not written", async () => {
  await assert.rejects(() => spec(["-H", `Authorization: Bearer ${SECRET}`]), /credential/);
  await assert.rejects(() => spec(["--url", `http://u:${SECRET}@127.0.0.1:8000`]), /credential/);
});

Deno.test("kube manifests: the shard config reads back as the same profile", async () => {
  const s = await spec(["--concurrency", "6", "--request-count", "30"]);
  const file = await Deno.makeTempFile({ suffix: ".yaml" });
  await Deno.writeTextFile(file, s.configYaml);
  const back = await parseProfileArgs(["-f", file], io);
  await Deno.remove(file);
  assert.equal(back.config.concurrency, 6);
  assert.equal(back.config.requestCount, 30);
  assert.equal(back.config.randomSeed, 5);
  assert.deepEqual(back.config.modelNames, ["m1"]);
});

Deno.test("kube manifests: run names and shard counts are checked", () => {
  const base = { run: "ok-run", namespace: "default", shards: 2, image: "i", configYaml: "" };
  assert.deepEqual(validateRunSpec(base), []);
  assert.equal(validateRunSpec({ ...base, run: "Bad_Name" }).length, 1);
  assert.equal(validateRunSpec({ ...base, shards: 0 }).length, 1);
});

Deno.test("kube args: kube options split from profile options", () => {
  const s = splitKubeArgs(["--shards", "4", "-m", "x", "--keep", "--namespace=ns", "--concurrency", "8"]);
  assert.deepEqual(s.kube, ["--shards", "4", "--keep", "--namespace=ns"]);
  assert.deepEqual(s.profile, ["-m", "x", "--concurrency", "8"]);
});

type Job = {
  spec: Record<string, unknown> & { template: { metadata: { labels: Record<string, string> }; spec: Pod } };
};
type Pod = Record<string, unknown> & { containers: Record<string, unknown>[] };
const jobOf = (s: KubeRunSpec) => kubeManifests(s).find((m) => m.kind === "Job") as unknown as Job;

Deno.test("kube manifests: shard pods pass the restricted Pod Security profile, with a writable /tmp only", async () => {
  const pod = jobOf(await spec()).spec.template.spec;
  assert.deepEqual(podSecurityViolations(pod, "restricted"), []);
  const c = pod.containers[0] as { securityContext: Record<string, unknown>; volumeMounts: unknown[] };
  assert.equal(c.securityContext.readOnlyRootFilesystem, true);
  assert.deepEqual(c.volumeMounts, [{ name: "tmp", mountPath: "/tmp" }]);
  // The checker is not a yes-man: the same pod without its security context is refused, and why is named.
  const bare = { ...pod, securityContext: undefined, containers: [{ ...pod.containers[0], securityContext: {} }] };
  assert.deepEqual(podSecurityViolations(bare, "restricted"), [
    "container shard: allowPrivilegeEscalation must be false",
    "container shard: runAsNonRoot must be true",
    "container shard: seccompProfile must be RuntimeDefault or Localhost",
    "container shard: capabilities must drop ALL",
  ]);
  assert.deepEqual(podSecurityViolations({ ...bare, hostNetwork: true }, "baseline"), ["hostNetwork: true"]);
  assert.deepEqual(podSecurityViolations({ ...bare, hostNetwork: true }, "privileged"), []);
});

Deno.test("kube manifests: standard labels on every object, bounded pods, TTL, deadline, failure policy", async () => {
  const s = {
    ...(await spec()),
    version: "1.2.3",
    activeDeadlineSeconds: 900.2,
    resources: defaultShardResources(100),
  };
  for (const m of kubeManifests(s)) {
    assert.equal(m.metadata.labels["app.kubernetes.io/name"], "infermeter");
    assert.equal(m.metadata.labels["app.kubernetes.io/instance"], "infermeter-abc");
    assert.equal(m.metadata.labels["app.kubernetes.io/managed-by"], "infermeter");
    assert.equal(m.metadata.labels["app.kubernetes.io/version"], "1.2.3");
    assert.ok(m.metadata.labels["app.kubernetes.io/component"]);
  }
  const job = jobOf(s);
  assert.equal(job.spec.template.metadata.labels["app.kubernetes.io/component"], "shard");
  assert.equal(job.spec.ttlSecondsAfterFinished, 3600);
  assert.equal(job.spec.activeDeadlineSeconds, 901);
  assert.deepEqual((job.spec.podFailurePolicy as { rules: { action: string }[] }).rules.map((r) => r.action), [
    "FailJob",
    "FailIndex",
  ]);
  assert.deepEqual(job.spec.template.spec.containers[0].resources, {
    requests: { cpu: "1", memory: "192Mi" },
    limits: { cpu: "1", memory: "192Mi" },
  });
  assert.deepEqual(defaultShardResources(4000), { cpu: "1", memory: "1216Mi" });
});

Deno.test("kube manifests: spread across nodes by default, pack on request; selectors, tolerations, affinity", async () => {
  const base = await spec();
  const spread = jobOf(base).spec.template.spec;
  assert.deepEqual(spread.topologySpreadConstraints, [{
    maxSkew: 1,
    topologyKey: "kubernetes.io/hostname",
    whenUnsatisfiable: "DoNotSchedule",
    nodeTaintsPolicy: "Honor",
    labelSelector: { matchLabels: { "infermeter.dev/run": "infermeter-abc", "infermeter.dev/role": "shard" } },
  }]);
  assert.equal(spread.affinity, undefined);
  const nodeAffinity = {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [{ matchExpressions: [{ key: "pool", operator: "In", values: ["bench"] }] }],
    },
  };
  const pack = jobOf({
    ...base,
    placement: "pack",
    nodeSelector: { "node.kubernetes.io/instance-type": "c7i.4xlarge" },
    tolerations: [parseToleration("dedicated=bench:NoSchedule"), parseToleration("gpu")],
    affinity: { nodeAffinity },
    imagePullSecrets: ["regcred"],
  }).spec.template.spec;
  assert.equal(pack.topologySpreadConstraints, undefined);
  assert.deepEqual(pack.nodeSelector, { "node.kubernetes.io/instance-type": "c7i.4xlarge" });
  assert.deepEqual(pack.tolerations, [
    { key: "dedicated", operator: "Equal", value: "bench", effect: "NoSchedule" },
    { key: "gpu", operator: "Exists" },
  ]);
  const affinity = pack.affinity as Record<string, Record<string, unknown[]>>;
  assert.deepEqual(affinity.nodeAffinity, nodeAffinity);
  assert.equal(affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution.length, 1);
  assert.deepEqual(pack.imagePullSecrets, [{ name: "regcred" }]);
  assert.deepEqual(parseToleration("*"), { operator: "Exists" });
  assert.deepEqual(parseToleration(":NoExecute"), { operator: "Exists", effect: "NoExecute" });
  assert.throws(() => parseToleration("a=b:Sometimes"), /effect must be one of/);
});

Deno.test("kube manifests: a reused service account gets no ServiceAccount, Role or RoleBinding", async () => {
  const ms = kubeManifests({ ...(await spec()), serviceAccount: "bench-runner" });
  assert.deepEqual(ms.map((m) => m.kind), ["ConfigMap", "ConfigMap", "Job"]);
  assert.equal(
    jobOf({ ...(await spec()), serviceAccount: "bench-runner" }).spec.template.spec.serviceAccountName,
    "bench-runner",
  );
});

Deno.test("kube manifests: kube run creates the Job suspended and every other object owned by it", async () => {
  const ms = kubeManifests({ ...(await spec()), suspended: true });
  assert.equal(jobOf({ ...(await spec()), suspended: true }).spec.suspend, true);
  const owned = ownedBy(ms, { name: "infermeter-abc", uid: "u-1" });
  for (const m of owned) {
    if (m.kind === "Job") assert.equal(m.metadata.ownerReferences, undefined);
    else {assert.deepEqual(m.metadata.ownerReferences, [{
        apiVersion: "batch/v1",
        kind: "Job",
        name: "infermeter-abc",
        uid: "u-1",
      }]);}
  }
  assert.equal(jobOf(await spec()).spec.suspend, undefined, "generate: applied as is, not suspended");
});
