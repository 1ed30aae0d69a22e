import assert from "node:assert/strict";
import { kubeManifests, manifestsYaml, validateRunSpec } from "../../src/kube/kube_manifests.ts";
import { shardConfigYaml } from "../../src/kube/shard_config.ts";
import { parseProfileArgs } from "../../src/config/parse_profile_args.ts";
import { splitKubeArgs } from "../../src/cli/kube.ts";

const io = { env: {}, readTextFile: Deno.readTextFileSync, isTty: false };
const SECRET = "sk-very-secret-value-123";

async function spec(extra: string[] = []) {
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
