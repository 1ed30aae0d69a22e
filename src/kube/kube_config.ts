/**
 * Where the Kubernetes API is and how to authenticate to it, found the standard way: an explicit kubeconfig
 * file, else `$KUBECONFIG` (the first file of the list), else `~/.kube/config`, else the in-cluster service
 * account (`KUBERNETES_SERVICE_HOST`/`_PORT`, the token, CA and namespace under
 * /var/run/secrets/kubernetes.io/serviceaccount). Bearer tokens and client certificates are supported; exec and
 * auth-provider plugins are not, and say so.
 */
import { joinPath } from "../runtime/file_path.ts";

export const IN_CLUSTER_DIR = "/var/run/secrets/kubernetes.io/serviceaccount";

export interface KubeConfig {
  /** https://host:port, no trailing slash. */
  readonly server: string;
  /** PEM of the cluster's CA (added to the system roots), when given. */
  readonly caPem?: string;
  readonly insecureSkipTlsVerify?: boolean;
  /** Read again per request when it came from a file (service-account tokens are rotated). */
  readonly token?: () => string;
  readonly clientCertPem?: string;
  readonly clientKeyPem?: string;
  /** The context's namespace (in-cluster: the pod's), when given. */
  readonly namespace?: string;
  /** Where it came from, for messages. */
  readonly source: string;
}

export class KubeConfigError extends Error {
  override name = "KubeConfigError";
}

export interface ResolveOptions {
  /** `--kubeconfig`. */
  readonly kubeconfig?: string;
  /** `--context`; the file's current-context otherwise. */
  readonly context?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly readTextFile?: (path: string) => string;
  readonly inClusterDir?: string;
}

/** Resolves the config the way kubectl and client-go do. */
export async function resolveKubeConfig(o: ResolveOptions = {}): Promise<KubeConfig> {
  const env = o.env ?? Deno.env.toObject();
  const read = o.readTextFile ?? Deno.readTextFileSync;
  if (o.kubeconfig !== undefined) return await loadKubeconfigFile(o.kubeconfig, o.context, read);
  const fromEnv = env.KUBECONFIG?.split(":").find((p) => p.length > 0);
  if (fromEnv !== undefined) return await loadKubeconfigFile(fromEnv, o.context, read);
  const home = env.HOME ?? env.USERPROFILE;
  if (home !== undefined) {
    const path = joinPath(home, ".kube", "config");
    if (exists(path, read)) return await loadKubeconfigFile(path, o.context, read);
  }
  if (env.KUBERNETES_SERVICE_HOST !== undefined) return inClusterConfig(env, o.inClusterDir ?? IN_CLUSTER_DIR, read);
  throw new KubeConfigError(
    "no Kubernetes configuration: give --kubeconfig, set KUBECONFIG, create ~/.kube/config, or run in a pod.",
  );
}

/** The pod's service account: token and CA files mounted by the kubelet, the API at the service env vars. */
export function inClusterConfig(
  env: Readonly<Record<string, string | undefined>>,
  dir: string = IN_CLUSTER_DIR,
  read: (path: string) => string = Deno.readTextFileSync,
): KubeConfig {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT ?? "443";
  if (host === undefined) throw new KubeConfigError("not in a cluster: KUBERNETES_SERVICE_HOST is not set.");
  const tokenPath = joinPath(dir, "token");
  const caPath = joinPath(dir, "ca.crt");
  let namespace: string | undefined;
  try {
    namespace = read(joinPath(dir, "namespace")).trim();
  } catch {
    namespace = undefined;
  }
  const caPem = readOrThrow(caPath, read, "in-cluster CA");
  readOrThrow(tokenPath, read, "in-cluster service-account token");
  return {
    server: `https://${host.includes(":") ? `[${host}]` : host}:${port}`,
    caPem,
    token: () => read(tokenPath).trim(),
    namespace,
    source: "in-cluster service account",
  };
}

/** Parses a kubeconfig file (YAML) and picks the context. */
export async function loadKubeconfigFile(
  path: string,
  context: string | undefined,
  read: (path: string) => string = Deno.readTextFileSync,
): Promise<KubeConfig> {
  const text = readOrThrow(path, read, "kubeconfig");
  const yaml = await import("js-yaml");
  let doc: unknown;
  try {
    doc = yaml.load(text);
  } catch (err) {
    throw new KubeConfigError(`${path}: not YAML (${(err as Error).message.split("\n")[0]})`);
  }
  return kubeconfigFromObject(doc, { path, context, read });
}

type Obj = Record<string, unknown>;

/** The part of a kubeconfig document this client uses; relative file paths resolve against the file's folder. */
export function kubeconfigFromObject(
  doc: unknown,
  o: { path: string; context?: string; read?: (path: string) => string },
): KubeConfig {
  const read = o.read ?? Deno.readTextFileSync;
  const where = o.path;
  if (!isObj(doc)) throw new KubeConfigError(`${where}: not a kubeconfig (expected a mapping)`);
  const named = (list: string, name: string, field: string): Obj => {
    const items = doc[list];
    const hit = Array.isArray(items) ? items.find((i) => isObj(i) && i.name === name) : undefined;
    if (!isObj(hit) || !isObj(hit[field])) throw new KubeConfigError(`${where}: no ${field} named '${name}'`);
    return hit[field] as Obj;
  };
  const contextName = o.context ?? str(doc["current-context"]);
  if (contextName === undefined || contextName === "") {
    throw new KubeConfigError(`${where}: no current-context; give --context.`);
  }
  const context = named("contexts", contextName, "context");
  const clusterName = str(context.cluster);
  if (clusterName === undefined) throw new KubeConfigError(`${where}: context '${contextName}' names no cluster`);
  const cluster = named("clusters", clusterName, "cluster");
  const server = str(cluster.server);
  if (server === undefined) throw new KubeConfigError(`${where}: cluster '${clusterName}' has no server`);
  const userName = str(context.user);
  const user = userName === undefined ? {} : named("users", userName, "user");
  if (user.exec !== undefined || user["auth-provider"] !== undefined) {
    throw new KubeConfigError(
      `${where}: user '${userName}' authenticates through an exec or auth-provider plugin, which infermeter does ` +
        "not run; use a token (e.g. `kubectl create token`) or a client certificate.",
    );
  }
  const dir = where.includes("/") ? where.slice(0, where.lastIndexOf("/")) : ".";
  const file = (p: unknown) => typeof p === "string" ? (p.startsWith("/") ? p : joinPath(dir, p)) : undefined;
  const pem = (data: unknown, path: unknown, what: string): string | undefined => {
    if (typeof data === "string") return atob(data);
    const f = file(path);
    return f === undefined ? undefined : readOrThrow(f, read, what);
  };
  const tokenFile = file(user.tokenFile);
  const tokenText = str(user.token);
  const username = str(user.username);
  if (username !== undefined && tokenText === undefined) {
    throw new KubeConfigError(`${where}: user '${userName}' uses basic auth, which the API server no longer accepts`);
  }
  return {
    server: server.replace(/\/+$/, ""),
    caPem: pem(cluster["certificate-authority-data"], cluster["certificate-authority"], "cluster CA"),
    insecureSkipTlsVerify: cluster["insecure-skip-tls-verify"] === true,
    token: tokenText !== undefined
      ? () => tokenText
      : tokenFile !== undefined
      ? () => readOrThrow(tokenFile, read, "token file").trim()
      : undefined,
    clientCertPem: pem(user["client-certificate-data"], user["client-certificate"], "client certificate"),
    clientKeyPem: pem(user["client-key-data"], user["client-key"], "client key"),
    namespace: str(context.namespace),
    source: `${where} (context ${contextName})`,
  };
}

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function exists(path: string, read: (path: string) => string): boolean {
  try {
    read(path);
    return true;
  } catch {
    return false;
  }
}

function readOrThrow(path: string, read: (path: string) => string, what: string): string {
  try {
    return read(path);
  } catch (err) {
    throw new KubeConfigError(`${what} ${path}: ${(err as Error).message}`);
  }
}
