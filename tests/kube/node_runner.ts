/**
 * Test-only stand-in for a kubelet: owns one Node, binds pending pods to it (there is no scheduler in the test
 * control plane), runs each pod's container command as a local process with the pod's environment (values,
 * fieldRefs, secretKeyRefs, JOB_COMPLETION_INDEX from the Job controller), gives it the pod's service account as
 * a kubeconfig (a token minted by the TokenRequest API, so RBAC is the real one), and patches the pod's status:
 * Running, then Succeeded or Failed with the exit code. `killIndex` kills one index's process once the run's
 * start time is written, as a node loss would.
 */
import { KubeClient, type KubeObject } from "../../src/kube/kube_client.ts";
import type { KubeConfig } from "../../src/kube/kube_config.ts";
import { START_ANNOTATION } from "../../src/kube/kube_manifests.ts";

export interface NodeRunnerOptions {
  readonly config: KubeConfig;
  /** The CA file the pods' kubeconfigs name. */
  readonly caFile: string;
  readonly nodeName?: string;
  /** Replaces a container command's first word (e.g. infermeter → [deno, run, -A, main.ts]). */
  readonly exec: Readonly<Record<string, readonly string[]>>;
  /** Kill this completion index's process (SIGKILL) `killAfterStartMs` after the run's start time is written. */
  readonly killIndex?: number;
  readonly killAfterStartMs?: number;
  /** The signal `killIndex` gets: SIGKILL (a lost node) by default, SIGTERM (an eviction) to test its grace. */
  readonly killSignal?: "SIGKILL" | "SIGTERM";
  /** Extra environment for one index's process (e.g. libfaketime's, to skew its clock). */
  readonly envFor?: (index: number) => Readonly<Record<string, string>> | undefined;
  readonly workDir: string;
  readonly log?: (line: string) => void;
}

type Pod = KubeObject & {
  spec: {
    nodeName?: string;
    serviceAccountName?: string;
    containers: { command?: string[]; args?: string[]; env?: EnvVar[] }[];
  };
  status?: { phase?: string };
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    deletionTimestamp?: string;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
  };
};
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { fieldRef?: { fieldPath: string }; secretKeyRef?: { name: string; key: string } };
}

export class NodeRunner {
  readonly #o: NodeRunnerOptions;
  readonly #client: KubeClient;
  readonly #node: string;
  readonly #started = new Set<string>();
  readonly #children = new Map<string, Deno.ChildProcess>();
  readonly #stop = new AbortController();
  #loop?: Promise<void>;
  readonly #log: (line: string) => void;

  constructor(o: NodeRunnerOptions) {
    this.#o = o;
    this.#client = new KubeClient(o.config);
    this.#node = o.nodeName ?? "testenv-node";
    this.#log = o.log ?? (() => {});
  }

  async start(): Promise<void> {
    const node = {
      apiVersion: "v1",
      kind: "Node",
      metadata: { name: this.#node, labels: { "kubernetes.io/hostname": this.#node } },
    };
    await this.#client.create("/api/v1/nodes", node).catch(() => {});
    await this.#client.request("PATCH", `/api/v1/nodes/${this.#node}/status`, {
      status: {
        conditions: [{
          type: "Ready",
          status: "True",
          reason: "TestRunner",
          lastHeartbeatTime: new Date().toISOString(),
        }],
        capacity: { cpu: "64", memory: "256Gi", pods: "110" },
        allocatable: { cpu: "64", memory: "256Gi", pods: "110" },
      },
    }, { contentType: "application/merge-patch+json" });
    this.#loop = this.#run();
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    for (const child of this.#children.values()) killGroup(child);
    await Promise.allSettled([...this.#children.values()].map((c) => c.status));
    await this.#loop?.catch(() => {});
    this.#client.close();
  }

  async #run(): Promise<void> {
    while (!this.#stop.signal.aborted) {
      try {
        const list = await this.#client.get<{ items: Pod[] }>("/api/v1/pods");
        for (const pod of list.items) {
          if (pod.metadata.deletionTimestamp !== undefined) await this.#terminate(pod);
          else await this.#handle(pod);
        }
      } catch (err) {
        if (!this.#stop.signal.aborted) this.#log(`runner: ${(err as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /**
   * A deleted pod's main process gets SIGTERM and its grace period (at most 30 s here), then the group SIGKILL, and
   * the pod is removed for good, as a kubelet confirms a deletion.
   */
  async #terminate(pod: Pod): Promise<void> {
    const child = this.#children.get(pod.metadata.uid);
    if (child !== undefined) {
      try {
        Deno.kill(child.pid, "SIGTERM");
      } catch { /* gone */ }
      const grace = Math.min(
        30,
        (pod.spec as { terminationGracePeriodSeconds?: number }).terminationGracePeriodSeconds ?? 30,
      );
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([child.status, new Promise((r) => timer = setTimeout(r, grace * 1000))]);
      clearTimeout(timer);
      killGroup(child);
      await child.status;
    }
    if (pod.spec.nodeName !== this.#node && pod.spec.nodeName !== undefined) return;
    await this.#client.request(
      "DELETE",
      `/api/v1/namespaces/${pod.metadata.namespace}/pods/${pod.metadata.name}`,
      { kind: "DeleteOptions", apiVersion: "v1", gracePeriodSeconds: 0 },
    ).catch(() => {});
  }

  async #handle(pod: Pod): Promise<void> {
    const { name, namespace, uid } = pod.metadata;
    const phase = pod.status?.phase ?? "Pending";
    if (phase !== "Pending" || this.#started.has(uid)) return;
    if (pod.spec.nodeName === undefined) {
      await this.#client.create(`/api/v1/namespaces/${namespace}/pods/${name}/binding`, {
        apiVersion: "v1",
        kind: "Binding",
        metadata: { name, namespace },
        target: { apiVersion: "v1", kind: "Node", name: this.#node },
      });
      return;
    }
    if (pod.spec.nodeName !== this.#node) return;
    this.#started.add(uid);
    await this.#launch(pod);
  }

  async #launch(pod: Pod): Promise<void> {
    const { name, namespace } = pod.metadata;
    const container = pod.spec.containers[0];
    const env: Record<string, string> = {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? this.#o.workDir,
      ...(Deno.env.get("DENO_DIR") ? { DENO_DIR: Deno.env.get("DENO_DIR")! } : {}),
    };
    // The pod's scratch-directory settings name the container's /tmp; a process on this host keeps its own.
    const local = new Set(["HOME", "TMPDIR", "DENO_DIR"]);
    for (const e of container.env ?? []) if (!local.has(e.name)) env[e.name] = await this.#envValue(pod, e);
    const index = Number(pod.metadata.annotations?.["batch.kubernetes.io/job-completion-index"]);
    Object.assign(env, this.#o.envFor?.(index) ?? {});
    const sa = pod.spec.serviceAccountName ?? "default";
    const token = await this.#client.create<{ status: { token: string } }>(
      `/api/v1/namespaces/${namespace}/serviceaccounts/${sa}/token`,
      {
        apiVersion: "authentication.k8s.io/v1",
        kind: "TokenRequest",
        spec: {
          expirationSeconds: 3600,
          boundObjectRef: { apiVersion: "v1", kind: "Pod", name, uid: pod.metadata.uid },
        },
      },
    );
    const dir = `${this.#o.workDir}/${namespace}-${name}`;
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(
      `${dir}/kubeconfig`,
      [
        "apiVersion: v1",
        "kind: Config",
        `clusters: [{name: c, cluster: {server: "${this.#o.config.server}", certificate-authority: "${this.#o.caFile}"}}]`,
        `users: [{name: u, user: {token: "${token.status.token}"}}]`,
        `contexts: [{name: c, context: {cluster: c, user: u, namespace: ${namespace}}}]`,
        "current-context: c",
        "",
      ].join("\n"),
    );
    env.KUBECONFIG = `${dir}/kubeconfig`;
    // No command: the image's entrypoint, which is infermeter.
    const argv = [...(container.command ?? ["infermeter"]), ...(container.args ?? [])];
    const mapped = [...(this.#o.exec[argv[0]] ?? [argv[0]]), ...argv.slice(1)];
    // setsid: the pod's processes form one group, killed together as a container's would be (the shard agent's
    // child included).
    const child = new Deno.Command("setsid", {
      args: mapped,
      env,
      clearEnv: true,
      cwd: dir,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    this.#children.set(pod.metadata.uid, child);
    const stderrFile = await Deno.open(`${dir}/stderr.log`, { create: true, write: true, truncate: true });
    child.stderr.pipeTo(stderrFile.writable).catch(() => {});
    const now = new Date().toISOString();
    await this.#status(pod, {
      phase: "Running",
      podIP: "127.0.0.1",
      hostIP: "127.0.0.1",
      startTime: now,
      conditions: [{ type: "Ready", status: "True", lastTransitionTime: now }],
      containerStatuses: [{
        name: "shard",
        ready: true,
        restartCount: 0,
        image: "x",
        imageID: "",
        state: { running: { startedAt: now } },
      }],
    });
    if (this.#o.killIndex !== undefined && index === this.#o.killIndex) void this.#killLater(pod, child);
    this.#log(`runner: started ${namespace}/${name} (index ${index}, pid ${child.pid})`);
    void child.status.then(async (s) => {
      killGroup(child); // what the pod's main process left behind ends with the container
      this.#children.delete(pod.metadata.uid);
      this.#log(`runner: ${namespace}/${name} exited ${s.code}${s.signal ? ` (${s.signal})` : ""}`);
      const at = new Date().toISOString();
      await this.#status(pod, {
        phase: s.success ? "Succeeded" : "Failed",
        conditions: [{ type: "Ready", status: "False", lastTransitionTime: at }],
        containerStatuses: [{
          name: "shard",
          ready: false,
          restartCount: 0,
          image: "x",
          imageID: "",
          state: { terminated: { exitCode: s.code, reason: s.success ? "Completed" : "Error", finishedAt: at } },
        }],
      }).catch((err) => this.#log(`runner: status of ${name}: ${err.message}`));
    });
  }

  async #killLater(pod: Pod, child: Deno.ChildProcess): Promise<void> {
    const run = pod.metadata.labels?.["infermeter.dev/run"];
    const path = `/api/v1/namespaces/${pod.metadata.namespace}/configmaps/${run}-start`;
    while (!this.#stop.signal.aborted) {
      const cm = await this.#client.tryGet(path).catch(() => undefined);
      if (cm?.metadata?.annotations?.[START_ANNOTATION] !== undefined) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const start = Number((await this.#client.tryGet(path))?.metadata?.annotations?.[START_ANNOTATION]);
    const delay = Math.max(0, start - Date.now()) + (this.#o.killAfterStartMs ?? 300);
    await new Promise((r) => setTimeout(r, delay));
    const signal = this.#o.killSignal ?? "SIGKILL";
    this.#log(`runner: ${signal} to index ${this.#o.killIndex} (pid ${child.pid})`);
    if (signal === "SIGKILL") killGroup(child);
    else {
      try {
        Deno.kill(child.pid, "SIGTERM");
      } catch { /* gone */ }
    }
  }

  async #envValue(pod: Pod, e: EnvVar): Promise<string> {
    if (e.value !== undefined) return e.value;
    const field = e.valueFrom?.fieldRef?.fieldPath;
    if (field !== undefined) {
      if (field === "metadata.name") return pod.metadata.name;
      if (field === "metadata.namespace") return pod.metadata.namespace;
      const m = /^metadata\.(annotations|labels)\['(.+)'\]$/.exec(field);
      if (m) return (m[1] === "annotations" ? pod.metadata.annotations : pod.metadata.labels)?.[m[2]] ?? "";
      throw new Error(`runner: fieldRef ${field} not supported`);
    }
    const ref = e.valueFrom?.secretKeyRef;
    if (ref !== undefined) {
      const secret = await this.#client.get<{ data?: Record<string, string> }>(
        `/api/v1/namespaces/${pod.metadata.namespace}/secrets/${ref.name}`,
      );
      return atob(secret.data?.[ref.key] ?? "");
    }
    return "";
  }

  #status(pod: Pod, status: Record<string, unknown>): Promise<unknown> {
    return this.#client.request(
      "PATCH",
      `/api/v1/namespaces/${pod.metadata.namespace}/pods/${pod.metadata.name}/status`,
      { status },
      { contentType: "application/merge-patch+json" },
    );
  }
}

/** SIGKILL to the pod's process group (setsid made the child its leader). */
function killGroup(child: Deno.ChildProcess): void {
  try {
    Deno.kill(-child.pid, "SIGKILL");
  } catch { /* already gone */ }
}
