/**
 * `kube run`'s checks before anything is created: the API server's version (it must know `backoffLimitPerIndex`,
 * or a failed shard would be retried and replay its load), a SelfSubjectAccessReview for every verb the
 * coordinator uses, the namespace and its Pod Security level against the shard pods, and a server-side dry run of
 * every object with strict field validation (what `kubectl apply --dry-run=server --validate=strict` does). Nothing
 * is persisted: a refused run leaves nothing behind.
 */
import { collectionOf, KubeApiError, type KubeObject, kubePaths } from "./kube_client.ts";
import { kubeManifests, type KubeRunSpec } from "./kube_manifests.ts";
import { namespaceLevel, podSecurityViolations } from "./pod_security.ts";

/** The first release whose Job API has `backoffLimitPerIndex` on by default (beta in 1.29, GA in 1.33). */
export const MIN_MINOR = 29;

/** The part of the API client preflight uses (KubeClient). */
export interface PreflightApi {
  get<T = KubeObject>(path: string): Promise<T>;
  request<T = KubeObject>(method: string, path: string, body?: unknown): Promise<T>;
}

export interface PreflightReport {
  /** Why the run cannot be created; empty: go. */
  readonly problems: readonly string[];
  /** Worth saying, not blocking (e.g. the namespace could not be read). */
  readonly notes: readonly string[];
  readonly serverVersion?: string;
  readonly podSecurity?: string;
}

interface Access {
  readonly verb: string;
  readonly resource: string;
  readonly group?: string;
  /** Without it the run still works, a little less informed (events, pods). */
  readonly optional?: string;
}

/** What the coordinator does in the namespace (create, follow, resume, read records, clean up). */
export function neededAccess(spec: Pick<KubeRunSpec, "serviceAccount">): Access[] {
  const rbac = spec.serviceAccount !== undefined ? [] : [
    ...["create", "delete"].map((verb) => ({ verb, resource: "serviceaccounts" })),
    ...["create", "delete"].map((verb) => ({ verb, resource: "roles", group: "rbac.authorization.k8s.io" })),
    ...["create", "delete"].map((verb) => ({ verb, resource: "rolebindings", group: "rbac.authorization.k8s.io" })),
  ];
  return [
    ...["create", "get", "watch", "patch", "delete"].map((verb) => ({ verb, resource: "jobs", group: "batch" })),
    ...["create", "get", "list", "watch", "patch", "deletecollection"].map((verb) => ({
      verb,
      resource: "configmaps",
    })),
    ...rbac,
    { verb: "list", resource: "events", optional: "pod events are not shown while the shards start" },
  ];
}

export async function kubePreflight(api: PreflightApi, spec: KubeRunSpec): Promise<PreflightReport> {
  const problems: string[] = [];
  const notes: string[] = [];
  const ns = spec.namespace;

  // 1. The server's version.
  let serverVersion: string | undefined;
  try {
    const v = await api.get<{ major?: string; minor?: string; gitVersion?: string }>("/version");
    serverVersion = v.gitVersion ?? `${v.major}.${v.minor}`;
    const major = Number.parseInt(v.major ?? "", 10);
    const minor = Number.parseInt(v.minor ?? "", 10);
    if (!Number.isFinite(major) || !Number.isFinite(minor)) {
      notes.push(`the server's version '${serverVersion}' is not a release version: not checked`);
    } else if (major === 1 && minor < MIN_MINOR) {
      problems.push(
        `the API server is Kubernetes ${serverVersion}; kube needs 1.${MIN_MINOR} or later (Jobs with ` +
          "backoffLimitPerIndex): an older one drops that field and would retry a failed shard, replaying its load",
      );
    }
  } catch (err) {
    if (!(err instanceof KubeApiError)) throw err;
    notes.push(`the server's version could not be read (${err.message})`);
  }

  // 2. Every verb the coordinator needs.
  const denied: string[] = [];
  for (const a of neededAccess(spec)) {
    const review = await api.request<{ status?: { allowed?: boolean; reason?: string } }>(
      "POST",
      "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
      {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SelfSubjectAccessReview",
        spec: { resourceAttributes: { namespace: ns, verb: a.verb, group: a.group ?? "", resource: a.resource } },
      },
    );
    if (review.status?.allowed === true) continue;
    const what = `${a.verb} ${a.resource}${a.group ? `.${a.group}` : ""}`;
    if (a.optional !== undefined) notes.push(`you may not ${what} in namespace ${ns}: ${a.optional}`);
    else denied.push(what);
  }
  if (denied.length > 0) {
    problems.push(
      `you may not ${denied.join(", ")} in namespace ${ns}` +
        (denied.some((d) => /^(create|delete) (serviceaccounts|roles|rolebindings)/.test(d))
          ? "; an administrator can grant them, or give --service-account <name> to run the pods as an existing " +
            "service account (no ServiceAccount, Role or RoleBinding is then created)"
          : "; ask an administrator for them"),
    );
  }

  // 3. The namespace, and its Pod Security level against the pods.
  let podSecurity: string | undefined;
  const job = kubeManifests(spec).find((m) => m.kind === "Job") as unknown as {
    spec: { template: { spec: Record<string, unknown> } };
  };
  try {
    const namespace = await api.get<KubeObject>(`${kubePaths.namespaces()}/${ns}`);
    const level = namespaceLevel(namespace.metadata?.labels);
    podSecurity = level;
    const violations = podSecurityViolations(job.spec.template.spec, level);
    if (violations.length > 0) {
      problems.push(
        `namespace ${ns} enforces the ${level} Pod Security level, which the shard pods violate: ` +
          violations.join("; "),
      );
    }
  } catch (err) {
    if (!(err instanceof KubeApiError)) throw err;
    if (err.status === 404) problems.push(`namespace ${ns} does not exist`);
    else notes.push(`namespace ${ns} could not be read (${err.status}): its Pod Security level is not checked`);
  }

  // 4. The objects themselves, as the server would take them (schema, admission, quota), persisting nothing.
  if (problems.length === 0) {
    for (const m of kubeManifests({ ...spec, suspended: true })) {
      try {
        await api.request("POST", `${collectionOf(m.kind, ns)}?dryRun=All&fieldValidation=Strict`, m);
      } catch (err) {
        if (!(err instanceof KubeApiError)) throw err;
        // A taken name is a run of the same name still there; anything else is the object's own problem.
        problems.push(
          err.status === 409
            ? `${m.kind} ${m.metadata.name} already exists in ${ns}: choose another --run-name or remove that run`
            : `${m.kind} ${m.metadata.name}: ${err.message}`,
        );
      }
    }
  }
  return { problems, notes, serverVersion, podSecurity };
}
