import assert from "node:assert/strict";
import { kubePreflight, type PreflightApi } from "../../src/kube/kube_preflight.ts";
import { KubeApiError } from "../../src/kube/kube_client.ts";
import type { KubeRunSpec } from "../../src/kube/kube_manifests.ts";

const SPEC: KubeRunSpec = { run: "r1", namespace: "bench", shards: 2, image: "infermeter:1", configYaml: "" };

/** An API that answers like a cluster would: a version, access reviews by verb, a namespace, dry runs. */
function cluster(o: {
  minor?: string;
  deny?: string[];
  nsLabels?: Record<string, string>;
  nsStatus?: number;
  taken?: string;
}): PreflightApi & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    get<T>(path: string): Promise<T> {
      calls.push(`GET ${path}`);
      if (path === "/version") {
        return Promise.resolve({ major: "1", minor: o.minor ?? "33", gitVersion: `v1.${o.minor ?? "33"}.0` } as T);
      }
      if (o.nsStatus !== undefined) {
        return Promise.reject(new KubeApiError(o.nsStatus, "x", `GET ${path}: ${o.nsStatus}`));
      }
      return Promise.resolve({ metadata: { name: "bench", labels: o.nsLabels ?? {} } } as T);
    },
    request<T>(method: string, path: string, body?: unknown): Promise<T> {
      calls.push(`${method} ${path}`);
      if (path.endsWith("/selfsubjectaccessreviews")) {
        const a = (body as { spec: { resourceAttributes: { verb: string; resource: string } } }).spec
          .resourceAttributes;
        return Promise.resolve({ status: { allowed: !(o.deny ?? []).includes(`${a.verb} ${a.resource}`) } } as T);
      }
      const name = (body as { metadata: { name: string } }).metadata.name;
      if (name === o.taken) return Promise.reject(new KubeApiError(409, "AlreadyExists", `${name} exists`));
      return Promise.resolve(body as T);
    },
  };
}

Deno.test("kube preflight: a cluster that has all it needs passes, and nothing but dry runs is created", async () => {
  const api = cluster({ nsLabels: { "pod-security.kubernetes.io/enforce": "restricted" } });
  const r = await kubePreflight(api, SPEC);
  assert.deepEqual(r.problems, []);
  assert.deepEqual(r.notes, []);
  assert.equal(r.serverVersion, "v1.33.0");
  assert.equal(r.podSecurity, "restricted");
  const posts = api.calls.filter((c) => c.startsWith("POST") && !c.endsWith("/selfsubjectaccessreviews"));
  assert.equal(posts.length, 6);
  assert.ok(posts.every((c) => c.endsWith("?dryRun=All&fieldValidation=Strict")), posts.join("\n"));
});

Deno.test("kube preflight: an API server older than backoffLimitPerIndex is refused", async () => {
  const r = await kubePreflight(cluster({ minor: "27" }), SPEC);
  assert.equal(r.problems.length, 1);
  assert.match(r.problems[0], /Kubernetes v1\.27\.0; kube needs 1\.29 or later .*would retry a failed shard/);
});

Deno.test("kube preflight: missing rights are named, with the way around creating roles", async () => {
  const r = await kubePreflight(cluster({ deny: ["create roles", "list events"] }), SPEC);
  assert.equal(r.problems.length, 1);
  assert.match(r.problems[0], /you may not create roles\.rbac\.authorization\.k8s\.io in namespace bench/);
  assert.match(r.problems[0], /--service-account <name>/);
  assert.deepEqual(r.notes, [
    "you may not list events in namespace bench: pod events are not shown while the " +
    "shards start",
  ]);
  // With an existing service account, no Role is needed.
  const reused = await kubePreflight(cluster({ deny: ["create roles"] }), { ...SPEC, serviceAccount: "runner" });
  assert.deepEqual(reused.problems, []);
});

Deno.test("kube preflight: a missing namespace and a run name in use are refused; an unreadable one is noted", async () => {
  assert.deepEqual((await kubePreflight(cluster({ nsStatus: 404 }), SPEC)).problems, [
    "namespace bench does not exist",
  ]);
  const forbidden = await kubePreflight(cluster({ nsStatus: 403 }), SPEC);
  assert.deepEqual(forbidden.problems, []);
  assert.match(forbidden.notes[0], /namespace bench could not be read \(403\)/);
  const taken = await kubePreflight(cluster({ taken: "r1-config" }), SPEC);
  assert.match(taken.problems[0], /ConfigMap r1-config already exists in bench: choose another --run-name/);
});
