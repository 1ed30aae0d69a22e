import assert from "node:assert/strict";
import {
  inClusterConfig,
  KubeConfigError,
  kubeconfigFromObject,
  resolveKubeConfig,
} from "../../src/kube/kube_config.ts";

const files: Record<string, string> = {
  "/k/ca.crt": "CA-PEM",
  "/k/token": "tok-from-file\n",
  "/sa/ca.crt": "SA-CA",
  "/sa/token": "sa-token\n",
  "/sa/namespace": "bench\n",
};
const read = (p: string) => {
  if (p in files) return files[p];
  throw new Error("not found");
};

const doc = {
  "current-context": "a",
  contexts: [
    { name: "a", context: { cluster: "c1", user: "u1", namespace: "ns-a" } },
    { name: "b", context: { cluster: "c1", user: "u2" } },
    { name: "x", context: { cluster: "c1", user: "u3" } },
  ],
  clusters: [{ name: "c1", cluster: { server: "https://127.0.0.1:6443/", "certificate-authority": "ca.crt" } }],
  users: [
    { name: "u1", user: { token: "t1" } },
    {
      name: "u2",
      user: { tokenFile: "/k/token", "client-certificate-data": btoa("CERT"), "client-key-data": btoa("KEY") },
    },
    { name: "u3", user: { exec: { command: "aws" } } },
  ],
};

Deno.test("kubeconfig: current context, relative CA path, inline token", () => {
  const c = kubeconfigFromObject(doc, { path: "/k/config", read });
  assert.equal(c.server, "https://127.0.0.1:6443");
  assert.equal(c.caPem, "CA-PEM");
  assert.equal(c.token?.(), "t1");
  assert.equal(c.namespace, "ns-a");
});

Deno.test("kubeconfig: another context, token file and client certificate data", () => {
  const c = kubeconfigFromObject(doc, { path: "/k/config", context: "b", read });
  assert.equal(c.token?.(), "tok-from-file");
  assert.equal(c.clientCertPem, "CERT");
  assert.equal(c.clientKeyPem, "KEY");
  assert.equal(c.namespace, undefined);
});

Deno.test("kubeconfig: exec plugins and unknown contexts are clear errors", () => {
  assert.throws(() => kubeconfigFromObject(doc, { path: "/k/config", context: "x", read }), /exec or auth-provider/);
  assert.throws(
    () => kubeconfigFromObject(doc, { path: "/k/config", context: "nope", read }),
    /no context named 'nope'/,
  );
});

Deno.test("in-cluster: service host and port, mounted token, CA and namespace", () => {
  const c = inClusterConfig({ KUBERNETES_SERVICE_HOST: "10.0.0.1", KUBERNETES_SERVICE_PORT: "443" }, "/sa", read);
  assert.equal(c.server, "https://10.0.0.1:443");
  assert.equal(c.caPem, "SA-CA");
  assert.equal(c.token?.(), "sa-token");
  assert.equal(c.namespace, "bench");
});

Deno.test("resolve: nothing configured says what to do", async () => {
  await assert.rejects(() => resolveKubeConfig({ env: {}, readTextFile: read }), KubeConfigError);
  const c = await resolveKubeConfig({ env: { KUBERNETES_SERVICE_HOST: "h" }, readTextFile: read, inClusterDir: "/sa" });
  assert.equal(c.source, "in-cluster service account");
});
