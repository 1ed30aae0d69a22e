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

export interface Toleration {
  readonly key?: string;
  readonly operator: "Equal" | "Exists";
  readonly value?: string;
  readonly effect?: "NoSchedule" | "PreferNoSchedule" | "NoExecute";
}

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
  /** Seconds the Job may run (once started) before Kubernetes stops it. */
  readonly activeDeadlineSeconds?: number;
  /** Seconds a finished Job (and everything it owns) stays before Kubernetes removes it. @default 3600 */
  readonly ttlSecondsAfterFinished?: number;
  /** The shard pods' command when the image's entrypoint is not infermeter (e.g. ["infermeter"] from its PATH). */
  readonly command?: readonly string[];
  /** spread (default): at most one shard more on any node than on another; pack: together where they fit. */
  readonly placement?: "spread" | "pack";
  readonly nodeSelector?: Readonly<Record<string, string>>;
  readonly tolerations?: readonly Toleration[];
  /** A pod `affinity` object (e.g. from --affinity-file); with pack, its pod affinity is added. */
  readonly affinity?: Readonly<Record<string, unknown>>;
  readonly imagePullSecrets?: readonly string[];
  /** An existing ServiceAccount for the pods: then no ServiceAccount, Role or RoleBinding is created. */
  readonly serviceAccount?: string;
  /** How often shards upload their records (ms). */
  readonly uploadIntervalMs?: number;
  /** The version label (`app.kubernetes.io/version`). */
  readonly version?: string;
  /**
   * `kube run`'s way: the Job is created suspended and every other object is owned by it (so one deletion, or the
   * Job's TTL, removes them all); the coordinator then resumes it. Not for `generate` (no uid to own by).
   */
  readonly suspended?: boolean;
}

export type Manifest = Record<string, unknown> & {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly labels: Record<string, string>;
    readonly ownerReferences?: readonly Record<string, unknown>[];
  };
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

const LABEL_KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

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
  for (const [k, v] of Object.entries(s.nodeSelector ?? {})) {
    if (!LABEL_KEY.test(k) || !LABEL_VALUE.test(v)) problems.push(`--node-selector ${k}=${v}: not a label key=value`);
  }
  for (const name of [...(s.imagePullSecrets ?? []), ...(s.serviceAccount ? [s.serviceAccount] : [])]) {
    if (!/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(name)) problems.push(`'${name}' is no object name`);
  }
  return problems;
}

/**
 * `key=value:Effect` (Equal), `key:Effect` or `key` (Exists), `key=value` (Equal, every effect), or `:Effect` /
 * `*` (tolerate every taint of that effect / every taint).
 */
export function parseToleration(text: string): Toleration {
  const effects = ["NoSchedule", "PreferNoSchedule", "NoExecute"] as const;
  const colon = text.lastIndexOf(":");
  const head = colon >= 0 ? text.slice(0, colon) : text;
  const effectText = colon >= 0 ? text.slice(colon + 1) : undefined;
  const effect = effects.find((e) => e === effectText);
  if (effectText !== undefined && effect === undefined) {
    throw new Error(`--toleration ${text}: the effect must be one of ${effects.join(", ")}`);
  }
  if (head === "*" || head === "") return { operator: "Exists", ...(effect ? { effect } : {}) };
  const eq = head.indexOf("=");
  const key = eq >= 0 ? head.slice(0, eq) : head;
  if (!LABEL_KEY.test(key)) throw new Error(`--toleration ${text}: '${key}' is not a taint key`);
  if (eq < 0) return { key, operator: "Exists", ...(effect ? { effect } : {}) };
  const value = head.slice(eq + 1);
  if (!LABEL_VALUE.test(value)) throw new Error(`--toleration ${text}: '${value}' is not a taint value`);
  return { key, operator: "Equal", value, ...(effect ? { effect } : {}) };
}

/**
 * Requests and limits for a shard holding `streams` concurrent requests: one engine thread (1 CPU), and memory for
 * the runtime (~160 MiB) plus what its streams hold in flight (≈ 0.25 MiB each, read buffers and records waiting
 * for upload), rounded up to 64 MiB. Requests equal limits: the pods get the Guaranteed QoS class, so a shard is
 * neither throttled below nor evicted before the others.
 */
export function defaultShardResources(streams: number): { cpu: string; memory: string } {
  const mib = 160 + Math.ceil(Math.max(0, streams) * 0.25);
  return { cpu: "1", memory: `${Math.ceil(mib / 64) * 64}Mi` };
}

/** The Job's pod template's labels, and the labels every object of the run carries. */
export function runLabels(s: Pick<KubeRunSpec, "run" | "version">, component: string): Record<string, string> {
  return {
    "app.kubernetes.io/name": "infermeter",
    "app.kubernetes.io/instance": s.run,
    "app.kubernetes.io/component": component,
    "app.kubernetes.io/part-of": "infermeter",
    "app.kubernetes.io/managed-by": "infermeter",
    ...(s.version ? { "app.kubernetes.io/version": s.version.replace(/[^A-Za-z0-9_.-]/g, "-").slice(0, 63) } : {}),
    [RUN_LABEL]: s.run,
    [ROLE_LABEL]: component,
  };
}

/** The restricted Pod Security profile's settings, which every shard pod runs under. */
export const POD_SECURITY_CONTEXT = {
  runAsNonRoot: true,
  runAsUser: 65532,
  runAsGroup: 65532,
  fsGroup: 65532,
  seccompProfile: { type: "RuntimeDefault" },
} as const;
export const CONTAINER_SECURITY_CONTEXT = {
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  runAsNonRoot: true,
  capabilities: { drop: ["ALL"] },
  seccompProfile: { type: "RuntimeDefault" },
} as const;

/** The exit code a shard ends with when the run's configuration is bad: every shard would fail alike. */
export const SHARD_BAD_CONFIG_EXIT = 2;

export function kubeManifests(s: KubeRunSpec): Manifest[] {
  const n = names(s.run);
  const meta = (name: string, role: string) => ({ name, namespace: s.namespace, labels: runLabels(s, role) });
  const resources = s.resources && (s.resources.cpu || s.resources.memory)
    ? { requests: { ...s.resources }, limits: { ...s.resources } }
    : undefined;
  const env: Record<string, unknown>[] = [
    { name: "INFERMETER_KUBE_RUN", value: s.run },
    { name: "INFERMETER_KUBE_NAMESPACE", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } },
    { name: "INFERMETER_KUBE_POD", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
    // The root file system is read-only: temporary files and caches go to the pod's own scratch volume.
    { name: "TMPDIR", value: "/tmp" },
    { name: "HOME", value: "/tmp" },
    { name: "DENO_DIR", value: "/tmp/deno" },
  ];
  if (s.apiKeySecret) {
    env.push({
      name: "INFERMETER_API_KEY",
      valueFrom: { secretKeyRef: { name: s.apiKeySecret.name, key: s.apiKeySecret.key } },
    });
  }
  const shardLabels = runLabels(s, "shard");
  const shardSelector = { matchLabels: { [RUN_LABEL]: s.run, [ROLE_LABEL]: "shard" } };
  const placement = s.placement ?? "spread";
  const affinity: Record<string, unknown> = { ...(s.affinity ?? {}) };
  if (placement === "pack") {
    const podAffinity = (affinity.podAffinity ?? {}) as Record<string, unknown[]>;
    affinity.podAffinity = {
      ...podAffinity,
      preferredDuringSchedulingIgnoredDuringExecution: [
        ...(podAffinity.preferredDuringSchedulingIgnoredDuringExecution ?? []),
        { weight: 100, podAffinityTerm: { labelSelector: shardSelector, topologyKey: "kubernetes.io/hostname" } },
      ],
    };
  }
  const account = s.serviceAccount ?? n.account;
  const rbac: Manifest[] = s.serviceAccount !== undefined ? [] : [
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
      rules: shardRules(s.run),
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: meta(n.account, "shard"),
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: n.account },
      subjects: [{ kind: "ServiceAccount", name: n.account, namespace: s.namespace }],
    },
  ];
  return [
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: meta(n.config, "config"),
      data: {
        [CONFIG_KEY]: s.configYaml,
        shards: String(s.shards),
        ...(s.uploadIntervalMs ? { uploadIntervalMs: String(s.uploadIntervalMs) } : {}),
      },
    },
    { apiVersion: "v1", kind: "ConfigMap", metadata: meta(n.start, "start"), data: {} },
    ...rbac,
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
        ...(s.suspended ? { suspend: true } : {}),
        ttlSecondsAfterFinished: s.ttlSecondsAfterFinished ?? 3600,
        ...(s.activeDeadlineSeconds ? { activeDeadlineSeconds: Math.ceil(s.activeDeadlineSeconds) } : {}),
        // A failed shard is never run again (it would replay its load): a bad configuration fails the whole Job at
        // once, and an evicted or preempted pod fails its index.
        podFailurePolicy: {
          rules: [
            {
              action: "FailJob",
              onExitCodes: { containerName: "shard", operator: "In", values: [SHARD_BAD_CONFIG_EXIT] },
            },
            { action: "FailIndex", onPodConditions: [{ type: "DisruptionTarget", status: "True" }] },
          ],
        },
        template: {
          metadata: { labels: shardLabels },
          spec: {
            serviceAccountName: account,
            automountServiceAccountToken: true,
            restartPolicy: "Never",
            // Enough for a shard to upload the records it measured after SIGTERM.
            terminationGracePeriodSeconds: 30,
            enableServiceLinks: false,
            securityContext: POD_SECURITY_CONTEXT,
            ...(s.nodeSelector && Object.keys(s.nodeSelector).length ? { nodeSelector: { ...s.nodeSelector } } : {}),
            ...(s.tolerations?.length ? { tolerations: s.tolerations.map((t) => ({ ...t })) } : {}),
            ...(Object.keys(affinity).length ? { affinity } : {}),
            ...(placement === "spread"
              ? {
                topologySpreadConstraints: [{
                  maxSkew: 1,
                  topologyKey: "kubernetes.io/hostname",
                  whenUnsatisfiable: "DoNotSchedule",
                  nodeTaintsPolicy: "Honor",
                  labelSelector: shardSelector,
                }],
              }
              : {}),
            ...(s.imagePullSecrets?.length ? { imagePullSecrets: s.imagePullSecrets.map((name) => ({ name })) } : {}),
            containers: [
              {
                name: "shard",
                image: s.image,
                ...(s.imagePullPolicy ? { imagePullPolicy: s.imagePullPolicy } : {}),
                // The image's entrypoint is infermeter (the Dockerfile's, scripts/image/build_oci.ts's).
                ...(s.command?.length ? { command: [...s.command] } : {}),
                args: ["kube", "shard"],
                env,
                securityContext: CONTAINER_SECURITY_CONTEXT,
                volumeMounts: [{ name: "tmp", mountPath: "/tmp" }],
                ...(resources ? { resources } : {}),
              },
            ],
            volumes: [{ name: "tmp", emptyDir: { sizeLimit: "256Mi" } }],
          },
        },
      },
    },
  ];
}

/** What a shard pod may do, and nothing more (also what a reused service account needs). */
export function shardRules(run: string): Record<string, unknown>[] {
  const n = names(run);
  return [
    { apiGroups: [""], resources: ["configmaps"], resourceNames: [n.config], verbs: ["get"] },
    { apiGroups: [""], resources: ["configmaps"], resourceNames: [n.start], verbs: ["get", "watch", "patch"] },
    { apiGroups: [""], resources: ["configmaps"], verbs: ["create"] },
  ];
}

/** The objects with owner references to the Job (kube run: one deletion, or the Job's TTL, removes them all). */
export function ownedBy(manifests: readonly Manifest[], job: { name: string; uid: string }): Manifest[] {
  return manifests.map((m) =>
    m.kind === "Job" ? m : {
      ...m,
      metadata: {
        ...m.metadata,
        ownerReferences: [{ apiVersion: "batch/v1", kind: "Job", name: job.name, uid: job.uid }],
      },
    }
  );
}

/** Manifests as one multi-document YAML stream. */
export async function manifestsYaml(manifests: readonly Manifest[]): Promise<string> {
  const yaml = await import("js-yaml");
  return manifests.map((m) => "---\n" + yaml.dump(m, { lineWidth: -1, noRefs: true })).join("");
}
