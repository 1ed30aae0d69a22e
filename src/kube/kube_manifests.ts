/**
 * The objects of a run on Kubernetes, as plain data (printed as YAML by `kube generate`, created by `kube run`):
 *
 * - ConfigMap `<run>-config`: the resolved profile configuration (no credential: see shard_config.ts).
 * - ConfigMap `<run>-start`: the shared start. Each shard adds a `ready` annotation; the coordinator then writes
 *   one start time; shards begin at it.
 * - ServiceAccount, Role, RoleBinding `<run>`: the shards' only rights — read the config, read/watch/patch the start
 *   ConfigMap (both by name), and create ConfigMaps (their record chunks; create cannot be limited by name).
 * - Job `<run>`: batch/v1, Indexed, completions = parallelism = N, restartPolicy Never, and no retry of any index
 *   (`backoffLimitPerIndex: 0`): a retried shard would replay its load, so a failed index makes the run partial
 *   while the other indexes run to the end (a plain `backoffLimit: 0` would stop them at the first failure).
 */

export const RUN_LABEL = "infermeter.dev/run";
export const ROLE_LABEL = "infermeter.dev/role";
export const READY_ANNOTATION_PREFIX = "infermeter.dev/ready-";
export const START_ANNOTATION = "infermeter.dev/start-at";
/** Written on the start ConfigMap by a coordinator that stops the run: every shard watching it stops. */
export const CANCEL_ANNOTATION = "infermeter.dev/cancel";
export const CONFIG_KEY = "profile.yaml";

export interface KubeRunSpec {
  /** The run's name: every object's name starts with it (a DNS label, ≤ 40 characters). */
  readonly run: string;
  readonly namespace: string;
  readonly shards: number;
  readonly image: string;
  readonly imagePullPolicy?: string;
  /** The resolved profile configuration (shard_config.ts). */
  readonly configYaml: string;
  /** A Secret (and key) holding the API key; the pods get it as INFERMETER_API_KEY. */
  readonly apiKeySecret?: { readonly name: string; readonly key: string };
  /** Container resources, e.g. {cpu: "2", memory: "2Gi"}: requests and limits alike. */
  readonly resources?: { readonly cpu?: string; readonly memory?: string };
  /** Seconds the Job may run before Kubernetes stops it. */
  readonly activeDeadlineSeconds?: number;
  /** The shard pods' command (the image's infermeter). */
  readonly command?: readonly string[];
}

export type Manifest = Record<string, unknown> & {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace: string; readonly labels: Record<string, string> };
};

export const names = (run: string) => ({
  config: `${run}-config`,
  start: `${run}-start`,
  account: run,
  job: run,
  recordsPrefix: `${run}-records-`,
});

/** A run name from a random suffix: `infermeter-` and 8 hex digits. */
export function newRunName(): string {
  const b = crypto.getRandomValues(new Uint8Array(4));
  return `infermeter-${[...b].map((x) => x.toString(16).padStart(2, "0")).join("")}`;
}

export function validateRunSpec(s: KubeRunSpec): string[] {
  const problems: string[] = [];
  if (!/^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$/.test(s.run)) {
    problems.push(`run name '${s.run}': lowercase letters, digits and '-', at most 40 characters`);
  }
  if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(s.namespace)) {
    problems.push(`namespace '${s.namespace}' is no DNS label`);
  }
  if (!Number.isInteger(s.shards) || s.shards < 1 || s.shards > 1000) problems.push("--shards: 1 to 1000");
  if (s.image.trim() === "") problems.push("--image is empty");
  return problems;
}

export function kubeManifests(s: KubeRunSpec): Manifest[] {
  const n = names(s.run);
  const labels = { "app.kubernetes.io/name": "infermeter", [RUN_LABEL]: s.run };
  const meta = (name: string, role: string) => ({
    name,
    namespace: s.namespace,
    labels: { ...labels, [ROLE_LABEL]: role },
  });
  const resources = s.resources && (s.resources.cpu || s.resources.memory)
    ? { requests: { ...s.resources }, limits: { ...s.resources } }
    : undefined;
  const env: Record<string, unknown>[] = [
    { name: "INFERMETER_KUBE_RUN", value: s.run },
    { name: "INFERMETER_KUBE_NAMESPACE", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } },
    { name: "INFERMETER_KUBE_POD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
  ];
  if (s.apiKeySecret) {
    env.push({
      name: "INFERMETER_API_KEY",
      valueFrom: { secretKeyRef: { name: s.apiKeySecret.name, key: s.apiKeySecret.key } },
    });
  }
  return [
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: meta(n.config, "config"),
      data: { [CONFIG_KEY]: s.configYaml, shards: String(s.shards) },
    },
    { apiVersion: "v1", kind: "ConfigMap", metadata: meta(n.start, "start"), data: {} },
    {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: meta(n.account, "shard"),
      automountServiceAccountToken: true,
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: meta(n.account, "shard"),
      rules: [
        { apiGroups: [""], resources: ["configmaps"], resourceNames: [n.config], verbs: ["get"] },
        { apiGroups: [""], resources: ["configmaps"], resourceNames: [n.start], verbs: ["get", "watch", "patch"] },
        { apiGroups: [""], resources: ["configmaps"], verbs: ["create"] },
      ],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: meta(n.account, "shard"),
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: n.account },
      subjects: [{ kind: "ServiceAccount", name: n.account, namespace: s.namespace }],
    },
    {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: meta(n.job, "shard"),
      spec: {
        completionMode: "Indexed",
        completions: s.shards,
        parallelism: s.shards,
        backoffLimitPerIndex: 0,
        maxFailedIndexes: s.shards,
        ...(s.activeDeadlineSeconds ? { activeDeadlineSeconds: s.activeDeadlineSeconds } : {}),
        template: {
          metadata: { labels: { ...labels, [ROLE_LABEL]: "shard" } },
          spec: {
            serviceAccountName: n.account,
            restartPolicy: "Never",
            containers: [
              {
                name: "shard",
                image: s.image,
                ...(s.imagePullPolicy ? { imagePullPolicy: s.imagePullPolicy } : {}),
                command: [...(s.command ?? ["infermeter"])],
                args: ["kube", "shard"],
                env,
                ...(resources ? { resources } : {}),
              },
            ],
          },
        },
      },
    },
  ];
}

/** Manifests as one multi-document YAML stream. */
export async function manifestsYaml(manifests: readonly Manifest[]): Promise<string> {
  const yaml = await import("js-yaml");
  return manifests.map((m) => "---\n" + yaml.dump(m, { lineWidth: -1, noRefs: true })).join("");
}
