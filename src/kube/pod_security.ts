/**
 * The Pod Security Standards (baseline, restricted; Kubernetes' "latest" version) checked against a pod spec, as the
 * PodSecurity admission would before creating the pod: `kube run`'s preflight compares the shard pods with the
 * namespace's `pod-security.kubernetes.io/enforce` level, so a refused pod is named before anything is created
 * instead of the Job waiting for pods that never come.
 */

export type PodSecurityLevel = "privileged" | "baseline" | "restricted";

export const ENFORCE_LABEL = "pod-security.kubernetes.io/enforce";

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === "object" && v !== null && !Array.isArray(v) ? v as Obj : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

const BASELINE_CAPS = new Set([
  "AUDIT_WRITE",
  "CHOWN",
  "DAC_OVERRIDE",
  "FOWNER",
  "FSETID",
  "KILL",
  "MKNOD",
  "NET_BIND_SERVICE",
  "SETFCAP",
  "SETGID",
  "SETPCAP",
  "SETUID",
  "SYS_CHROOT",
]);
const SAFE_SYSCTLS = new Set([
  "kernel.shm_rmid_forced",
  "net.ipv4.ip_local_port_range",
  "net.ipv4.ip_unprivileged_port_start",
  "net.ipv4.tcp_syncookies",
  "net.ipv4.ping_group_range",
  "net.ipv4.ip_local_reserved_ports",
  "net.ipv4.tcp_keepalive_time",
  "net.ipv4.tcp_fin_timeout",
  "net.ipv4.tcp_keepalive_intvl",
  "net.ipv4.tcp_keepalive_probes",
]);
const RESTRICTED_VOLUMES = new Set([
  "configMap",
  "csi",
  "downwardAPI",
  "emptyDir",
  "ephemeral",
  "persistentVolumeClaim",
  "projected",
  "secret",
]);

/** The level from a namespace's labels (absent: privileged, Kubernetes' default). */
export function namespaceLevel(labels: Readonly<Record<string, string>> | undefined): PodSecurityLevel {
  const v = labels?.[ENFORCE_LABEL];
  return v === "baseline" || v === "restricted" ? v : "privileged";
}

/** What in `podSpec` the level forbids, each in a few words naming the field; empty: admitted. */
export function podSecurityViolations(podSpec: Obj, level: PodSecurityLevel): string[] {
  if (level === "privileged") return [];
  const out: string[] = [];
  const pod = obj(podSpec.securityContext);
  const containers = [...list(podSpec.containers), ...list(podSpec.initContainers)].map(obj);
  const named = (c: Obj) => `container ${String(c.name ?? "?")}`;

  // Baseline.
  for (const k of ["hostNetwork", "hostPID", "hostIPC"]) if (podSpec[k] === true) out.push(`${k}: true`);
  if (obj(pod.windowsOptions).hostProcess === true) out.push("windowsOptions.hostProcess");
  for (const v of list(podSpec.volumes).map(obj)) if (v.hostPath !== undefined) out.push(`hostPath volume ${v.name}`);
  if (obj(pod.seccompProfile).type === "Unconfined") out.push("pod seccompProfile Unconfined");
  for (const s of list(pod.sysctls).map(obj)) {
    if (!SAFE_SYSCTLS.has(String(s.name))) out.push(`sysctl ${s.name}`);
  }
  const seLinuxBad = (o: Obj) => {
    const t = o.type;
    return (t !== undefined && !["container_t", "container_init_t", "container_kvm_t", "container_engine_t"]
      .includes(String(t))) || o.user !== undefined || o.role !== undefined;
  };
  if (seLinuxBad(obj(pod.seLinuxOptions))) out.push("pod seLinuxOptions");
  for (const c of containers) {
    const sc = obj(c.securityContext);
    if (sc.privileged === true) out.push(`${named(c)}: privileged`);
    if (obj(sc.windowsOptions).hostProcess === true) out.push(`${named(c)}: hostProcess`);
    for (const cap of list(obj(sc.capabilities).add)) {
      if (!BASELINE_CAPS.has(String(cap))) out.push(`${named(c)}: adds capability ${cap}`);
    }
    for (const p of list(c.ports).map(obj)) {
      if (p.hostPort !== undefined && p.hostPort !== 0) out.push(`${named(c)}: hostPort ${p.hostPort}`);
    }
    if (sc.procMount !== undefined && sc.procMount !== "Default") out.push(`${named(c)}: procMount ${sc.procMount}`);
    if (obj(sc.seccompProfile).type === "Unconfined") out.push(`${named(c)}: seccompProfile Unconfined`);
    if (obj(sc.appArmorProfile).type === "Unconfined") out.push(`${named(c)}: appArmorProfile Unconfined`);
    if (seLinuxBad(obj(sc.seLinuxOptions))) out.push(`${named(c)}: seLinuxOptions`);
  }
  if (level === "baseline") return out;

  // Restricted.
  for (const v of list(podSpec.volumes).map(obj)) {
    const kind = Object.keys(v).find((k) => k !== "name");
    if (kind !== undefined && !RESTRICTED_VOLUMES.has(kind)) out.push(`volume ${v.name} of type ${kind}`);
  }
  const podSeccomp = obj(pod.seccompProfile).type;
  for (const c of containers) {
    const sc = obj(c.securityContext);
    if (sc.allowPrivilegeEscalation !== false) out.push(`${named(c)}: allowPrivilegeEscalation must be false`);
    if (sc.runAsNonRoot !== true && !(pod.runAsNonRoot === true && sc.runAsNonRoot === undefined)) {
      out.push(`${named(c)}: runAsNonRoot must be true`);
    }
    if (sc.runAsUser === 0 || (sc.runAsUser === undefined && pod.runAsUser === 0)) {
      out.push(`${named(c)}: runAsUser 0`);
    }
    const seccomp = obj(sc.seccompProfile).type ?? podSeccomp;
    if (seccomp !== "RuntimeDefault" && seccomp !== "Localhost") {
      out.push(`${named(c)}: seccompProfile must be RuntimeDefault or Localhost`);
    }
    const caps = obj(sc.capabilities);
    if (!list(caps.drop).includes("ALL")) out.push(`${named(c)}: capabilities must drop ALL`);
    for (const cap of list(caps.add)) {
      if (cap !== "NET_BIND_SERVICE" && BASELINE_CAPS.has(String(cap))) {
        out.push(`${named(c)}: adds capability ${cap}`);
      }
    }
  }
  return out;
}
