/**
 * Finds (and, when allowed, installs) the reference clients: `wrk` from the Debian package, AIPerf from PyPI
 * into a virtual environment under `.bench/` (gitignored). Each answers either a ready tool or a one-line
 * reason to skip it.
 */
import { quickCommand, tail } from "./child_runner.ts";
import { ensureTiktokenCache } from "./tiktoken_cache.ts";

export type Tool<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

export interface WrkTool {
  readonly path: string;
  readonly version: string;
}

export interface AiperfTool {
  readonly aiperf: string;
  readonly python: string;
  readonly version: string;
  readonly env: Readonly<Record<string, string>>;
}

async function which(name: string): Promise<string | undefined> {
  const r = await quickCommand(["sh", "-c", `command -v ${name}`], 5000);
  const path = r.stdout.trim();
  return r.code === 0 && path !== "" ? path : undefined;
}

export async function hasCommand(name: string): Promise<boolean> {
  return (await which(name)) !== undefined;
}

export async function setupWrk(install: boolean): Promise<Tool<WrkTool>> {
  let path = await which("wrk");
  if (path === undefined && install) {
    if (Deno.uid?.() !== 0) return { ok: false, reason: "wrk is not installed (apt-get install wrk needs root)." };
    console.error("bench: installing wrk (apt-get install -y wrk)…");
    let r = await quickCommand(["apt-get", "install", "-y", "-q", "wrk"], 180_000, {
      env: { DEBIAN_FRONTEND: "noninteractive" },
    });
    if (r.code !== 0) {
      await quickCommand(["apt-get", "update", "-q"], 180_000);
      r = await quickCommand(["apt-get", "install", "-y", "-q", "wrk"], 180_000, {
        env: { DEBIAN_FRONTEND: "noninteractive" },
      });
    }
    if (r.code !== 0) return { ok: false, reason: `apt-get install wrk failed: ${tail(r.stderr, 2)}` };
    path = await which("wrk");
  }
  if (path === undefined) return { ok: false, reason: "wrk is not installed (apt-get install wrk)." };
  const v = await quickCommand([path, "--version"], 5000);
  const version = /wrk (\S+)/.exec(v.stdout + v.stderr)?.[1] ?? "unknown";
  return { ok: true, value: { path, version } };
}

/** A Python ≥ 3.10 (AIPerf's floor), newest first. */
async function findPython(): Promise<string | undefined> {
  for (const name of ["python3.13", "python3.12", "python3.11", "python3.10", "python3"]) {
    const path = await which(name);
    if (path === undefined) continue;
    const r = await quickCommand([path, "-c", "import sys; print(sys.version_info >= (3, 10))"], 10_000);
    if (r.stdout.trim() === "True") return path;
  }
  return undefined;
}

/** The AIPerf release the product follows (its flags, metrics and exports): the side-by-side reference. */
export const AIPERF_VERSION = "0.13.0";

/** AIPerf from `.bench/aiperf-venv` (installed there when missing and allowed), or from `venv` as it is. */
export async function setupAiperf(benchDir: string, install: boolean, venvDir?: string): Promise<Tool<AiperfTool>> {
  const venv = venvDir ?? `${benchDir}/aiperf-venv`;
  if (venvDir !== undefined) install = false;
  const python = `${venv}/bin/python`;
  const aiperf = `${venv}/bin/aiperf`;
  const versionOf = async () => {
    const r = await quickCommand([python, "-c", "import importlib.metadata as m; print(m.version('aiperf'))"], 30_000);
    return r.code === 0 ? r.stdout.trim() : undefined;
  };
  let version = await versionOf();
  if (version === undefined) {
    if (!install) return { ok: false, reason: `AIPerf is not installed in ${venv} (run without --no-install).` };
    const system = await findPython();
    if (system === undefined) return { ok: false, reason: "AIPerf skipped: no Python 3.10 or newer found." };
    console.error(
      `bench: installing AIPerf into ${venv} (pip install aiperf==${AIPERF_VERSION}; a few minutes the first time)…`,
    );
    const mk = await quickCommand([system, "-m", "venv", venv], 120_000);
    if (mk.code !== 0) return { ok: false, reason: `AIPerf skipped: python -m venv failed: ${tail(mk.stderr, 2)}` };
    const pip = await quickCommand([python, "-m", "pip", "install", "-q", `aiperf==${AIPERF_VERSION}`], 900_000, {
      env: { PIP_DISABLE_PIP_VERSION_CHECK: "1" },
    });
    if (pip.code !== 0) {
      return {
        ok: false,
        reason: `AIPerf skipped: pip install aiperf failed (is PyPI reachable?): ${tail(pip.stderr, 3)}`,
      };
    }
    version = await versionOf();
    if (version === undefined) return { ok: false, reason: "AIPerf skipped: installed but cannot be imported." };
  }
  if (version !== AIPERF_VERSION) {
    console.error(`bench: AIPerf ${version} in ${venv}, not ${AIPERF_VERSION}: its rows compare against that release`);
  }
  let cacheDir: string;
  try {
    cacheDir = await ensureTiktokenCache(`${benchDir}/tiktoken-cache`);
  } catch (err) {
    return { ok: false, reason: `AIPerf skipped: cannot provide o200k_base offline: ${(err as Error).message}` };
  }
  return {
    ok: true,
    value: {
      aiperf,
      python,
      version,
      env: {
        TIKTOKEN_CACHE_DIR: cacheDir,
        HF_HUB_OFFLINE: "1",
        HF_HUB_DISABLE_TELEMETRY: "1",
        PYTHONUNBUFFERED: "1",
        NO_COLOR: "1",
      },
    },
  };
}
