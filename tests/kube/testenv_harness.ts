/** What the kube end-to-end tests share: the test environment's directory, free ports, and testenv.sh itself. */

export const ROOT: string = new URL("../../", import.meta.url).pathname;
export const TESTENV: string = Deno.env.get("KUBE_TESTENV_DIR") ?? `${ROOT}.kube-testenv`;

/** A free loopback port, and for etcd one whose successor is free too (its peer port). */
export function freePort(pair = false): number {
  for (let i = 0; i < 50; i++) {
    const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (l.addr as Deno.NetAddr).port;
    l.close();
    if (!pair) return port;
    try {
      Deno.listen({ hostname: "127.0.0.1", port: port + 1 }).close();
      return port;
    } catch { /* taken: try another */ }
  }
  throw new Error("no free port pair");
}

/** Runs `scripts/kube/testenv.sh <args>` with the test's environment; its stdout (e.g. a kubeconfig path). */
export async function testenv(args: readonly string[], env: Readonly<Record<string, string>>): Promise<string> {
  const out = await new Deno.Command("bash", {
    args: [`${ROOT}scripts/kube/testenv.sh`, ...args],
    env: { KUBE_TESTENV_DIR: TESTENV, ...env },
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error(`testenv.sh ${args.join(" ")} failed`);
  return new TextDecoder().decode(out.stdout).trim();
}

/** Why the control-plane tests cannot run here (binaries or etcd missing), or undefined. */
export function controlPlaneMissing(binaries = ["kube-apiserver", "kube-controller-manager"]): string | undefined {
  for (const b of binaries) {
    try {
      Deno.statSync(`${TESTENV}/bin/${b}`);
    } catch {
      return `no ${b} in ${TESTENV}/bin (run scripts/kube/testenv.sh build; KUBE_TESTENV_DIR chooses the directory)`;
    }
  }
  const found = (Deno.env.get("PATH") ?? "").split(":").some((d) => {
    try {
      return Deno.statSync(`${d}/etcd`).isFile;
    } catch {
      return false;
    }
  });
  return found ? undefined : "no etcd on PATH (apt-get install etcd-server)";
}
