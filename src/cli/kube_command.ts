/**
 * The options of `infermeter kube generate|run|start|collect`, declared once (parser and `--help`); every other option is a
 * profile option, passed to the shards through the run's ConfigMap.
 */
import { type Command, defineCommand } from "../config/command_spec.ts";
import type { OptionSpec } from "../base/option_spec.ts";
import { VERSION } from "../base/version.ts";

const G = "Kubernetes";

export const KUBE_OPTIONS = [
  {
    key: "shards",
    type: "int",
    min: 1,
    max: 1000,
    default: 1,
    flags: ["--shards"],
    group: G,
    metavar: "<N>",
    help: "Shard pods (Job completions = parallelism = N); each runs 1/N of the virtual users or arrivals.",
  },
  {
    key: "image",
    type: "string",
    default: `infermeter:${VERSION}`,
    flags: ["--image"],
    group: G,
    metavar: "<image>",
    help: "Container image with infermeter on its PATH (build one with scripts/image/build_oci.sh or the Dockerfile).",
  },
  {
    key: "imagePullPolicy",
    type: "string",
    flags: ["--image-pull-policy"],
    group: G,
    metavar: "<policy>",
    default: "IfNotPresent",
    help: "Always, IfNotPresent or Never.",
  },
  {
    key: "shardCommand",
    type: "list",
    items: "text",
    flags: ["--shard-command"],
    group: G,
    metavar: "<word,…>",
    defaultDescription: "the image's entrypoint",
    help: "The shard container's command, for an image whose entrypoint is not infermeter (e.g. infermeter, with " +
      "infermeter on the image's PATH); the arguments are kube shard.",
  },
  {
    key: "namespace",
    type: "string",
    flags: ["--namespace", "-n"],
    group: G,
    metavar: "<ns>",
    defaultDescription: "the kubeconfig context's, else default",
    help: "Namespace of the run's objects (it must exist).",
  },
  {
    key: "kubeconfig",
    type: "path",
    flags: ["--kubeconfig"],
    group: G,
    metavar: "<file>",
    defaultDescription: "$KUBECONFIG, ~/.kube/config, or the pod's service account",
    help: "Kubeconfig file (token or client-certificate users).",
  },
  {
    key: "context",
    type: "string",
    flags: ["--context"],
    group: G,
    metavar: "<name>",
    help: "Kubeconfig context (its current-context otherwise).",
  },
  {
    key: "apiKeySecret",
    type: "string",
    flags: ["--api-key-secret"],
    group: G,
    metavar: "<secret>[:<key>]",
    help: "Secret (in the namespace) holding the API key, given to the pods as INFERMETER_API_KEY; key 'api-key' " +
      "by default. A credential is never written into a manifest.",
  },
  {
    key: "runName",
    type: "string",
    flags: ["--run-name"],
    group: G,
    metavar: "<name>",
    defaultDescription: "infermeter-<random>",
    help: "Name (prefix) of the run's objects; kube start and collect find an applied run by it.",
  },
  {
    key: "shardCpu",
    type: "string",
    flags: ["--shard-cpu"],
    group: G,
    metavar: "<cpu>",
    defaultDescription: "1",
    help: "CPU request and limit of each shard pod (e.g. 2).",
  },
  {
    key: "shardMemory",
    type: "string",
    flags: ["--shard-memory"],
    group: G,
    metavar: "<mem>",
    defaultDescription: "160 MiB + 0.25 MiB per stream the shard holds, in 64 MiB steps",
    help: "Memory request and limit of each shard pod (e.g. 2Gi).",
  },
  {
    key: "placement",
    type: "enum",
    choices: ["spread", "pack"],
    default: "spread",
    flags: ["--placement"],
    group: G,
    metavar: "<how>",
    help: "spread: shards across nodes (topology spread by hostname, at most one more on any node than another); " +
      "pack: together on as few nodes as they fit.",
  },
  {
    key: "nodeSelector",
    type: "list",
    items: "text",
    flags: ["--node-selector"],
    group: G,
    metavar: "<key=value>",
    help: "Run shards only on nodes with these labels (comma-separated or repeated).",
  },
  {
    key: "tolerations",
    type: "list",
    items: "text",
    flags: ["--toleration"],
    group: G,
    metavar: "<key[=value][:effect]>",
    help: "Let shards run on nodes with this taint (repeated for several; '*' tolerates every taint).",
  },
  {
    key: "affinityFile",
    type: "path",
    flags: ["--affinity-file"],
    group: G,
    metavar: "<file>",
    help: "YAML or JSON file with a pod 'affinity' object for the shard pods.",
  },
  {
    key: "imagePullSecrets",
    type: "list",
    items: "text",
    flags: ["--image-pull-secret"],
    group: G,
    metavar: "<secret>",
    help: "Secret(s) to pull the image with (comma-separated or repeated).",
  },
  {
    key: "serviceAccount",
    type: "string",
    flags: ["--service-account"],
    group: G,
    metavar: "<name>",
    help: "Run the pods as this existing ServiceAccount instead of creating one with its Role and RoleBinding " +
      "(it needs get on the run's config ConfigMap, get/watch/patch on its start ConfigMap, create on configmaps).",
  },
  {
    key: "activeDeadline",
    type: "float",
    min: 1,
    flags: ["--active-deadline"],
    group: G,
    metavar: "<s>",
    defaultDescription: "the run's duration, warm-up, grace period and ready timeout plus 5 min; 1 h plus the " +
      "ready timeout for a run bounded by a request count",
    help: "Seconds the Job may run before Kubernetes stops every shard (its activeDeadlineSeconds).",
  },
  {
    key: "ttlAfterFinished",
    type: "int",
    min: 0,
    default: 3600,
    flags: ["--ttl-after-finished"],
    group: G,
    metavar: "<s>",
    help: "Seconds a finished Job stays before Kubernetes removes it and every object of the run (also when the " +
      "coordinator is gone).",
  },
  {
    key: "uploadInterval",
    type: "float",
    min: 0.2,
    default: 5,
    flags: ["--upload-interval"],
    group: G,
    metavar: "<s>",
    help: "Shards upload their records this often while they run (and when they stop): a lost pod loses at most " +
      "this much.",
  },
  {
    key: "preflight",
    type: "bool",
    default: true,
    flags: ["--preflight"],
    group: G,
    help: "kube run: check the cluster version, your rights and the namespace's Pod Security level before " +
      "creating anything (--no-preflight skips it).",
  },
  {
    key: "keep",
    type: "bool",
    default: false,
    flags: ["--keep"],
    group: G,
    help: "kube run, collect: leave the run's objects (Job, ConfigMaps, RBAC) in the cluster afterwards.",
  },
  {
    key: "readyTimeout",
    type: "float",
    min: 1,
    default: 600,
    flags: ["--ready-timeout"],
    group: G,
    metavar: "<s>",
    help: "kube run, start, collect: seconds the shards may take to be scheduled and ready before the run is stopped.",
  },
  {
    key: "startDelay",
    type: "float",
    min: 0.1,
    default: 2,
    flags: ["--start-delay"],
    group: G,
    metavar: "<s>",
    help: "kube run, start, collect: the shared start is this many seconds after the last shard is ready.",
  },
] as const satisfies readonly OptionSpec[];

export const KUBE_COMMAND: Command<typeof KUBE_OPTIONS> = defineCommand({
  name: "kube",
  usage: "generate|run|start|collect [kube options] <profile options>",
  description: "Run a profile from N pods of a Kubernetes Indexed Job and merge their records exactly.\n" +
    "generate prints the manifests (ConfigMaps, ServiceAccount/Role/RoleBinding, Job); run checks the cluster " +
    "(preflight), applies them, starts " +
    "the shards together, collects every shard's records, merges them into the usual artifact directory and " +
    "report, and removes the objects (--keep leaves them). For manifests applied by other means (generate | " +
    "kubectl apply -f -), whose shards wait for a start only a coordinator writes: start --run-name R writes it " +
    "once every shard is ready; collect --run-name R does that unless done, then collects, merges and cleans up " +
    "like run (the profile options come from the run's ConfigMap; --artifact-dir and the like may be added). --model is required (the coordinator may not reach the " +
    "server); --random-seed is drawn when not given.\n" +
    "Exit codes: 0 every shard ran to its end; 1 a partial run (a shard failed or its pod was lost: what it uploaded " +
    "is kept) or all requests failed; 2 bad options or a failed preflight (cluster older than 1.29, a right or the " +
    "namespace's Pod Security level missing; nothing was created); 3 the Kubernetes API cannot be reached; 70 " +
    "internal error; 130 interrupted (the shards were told to stop; what they measured is exported).",
  options: KUBE_OPTIONS,
  operands: "accept",
});
