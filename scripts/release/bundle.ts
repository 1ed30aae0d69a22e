/**
 * `deno task bundle`: a self-contained JavaScript build, `dist/infermeter.js` and the folder `dist/infermeter/` of
 * the modules it loads on use (build_bundle.ts), that runs with nothing but Deno (`deno run -A --v8-flags=…
 * infermeter.js …`, the flags of src/runtime/v8_flags.ts), offline, from any directory. It is the stand-in for
 * `deno compile` where the compile runtime cannot be downloaded. Workers re-enter the same entry file
 * (src/runtime/spawn_worker.ts), and the corpus text and binary assets are inlined, so nothing else is needed.
 *
 * After bundling, the entry and its folder are copied to an empty temporary directory and smoke-tested there (`--version`,
 * `profile --help`, `demo`: a real benchmark, Workers included, against the built-in simulated server, and `plot` of
 * its artifacts: PNG charts through the embedded WebAssembly rasterizer and font, and report.html) with an
 * empty `DENO_DIR`, so nothing can come from Deno's module or npm cache; where the machine allows it (Linux, root,
 * `unshare` and `ip`), inside a network namespace that has only loopback, so nothing can come from the network.
 */
import { V8_FLAGS_ARG } from "../../src/runtime/v8_flags.ts";
import { buildBundle, bundleFiles } from "./build_bundle.ts";

const root = new URL("../../", import.meta.url).pathname;
const out = `${root}dist/infermeter.js`;

async function run(
  cmd: string,
  args: string[],
  cwd = root,
  env?: Record<string, string>,
): Promise<{ ok: boolean; out: string }> {
  try {
    const r = await new Deno.Command(cmd, { args, cwd, env, stdout: "piped", stderr: "piped" }).output();
    return { ok: r.success, out: new TextDecoder().decode(r.stdout) + new TextDecoder().decode(r.stderr) };
  } catch (err) {
    return { ok: false, out: String(err) }; // e.g. `unshare` is not installed
  }
}

/** The argv prefix that runs a command in a fresh network namespace with only loopback up, where allowed. */
async function offlinePrefix(): Promise<string[]> {
  if (Deno.build.os !== "linux") return [];
  const prefix = ["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$0" "$@"'];
  const probe = await run(prefix[0], [...prefix.slice(1), "true"]);
  return probe.ok ? prefix : [];
}

await Deno.mkdir(`${root}dist`, { recursive: true });
const bundled = await buildBundle(root, out);
if (!bundled.ok) {
  console.error(`bundle failed:\n${bundled.out}`);
  Deno.exit(1);
}
const files = await bundleFiles(out);
const size = (await Deno.stat(out)).size;
let total = 0;
for (const f of files) total += (await Deno.stat(`${root}dist/${f}`)).size;

const empty = await Deno.makeTempDir({ prefix: "infermeter-bundle-" });
try {
  await Deno.mkdir(`${empty}/infermeter`);
  for (const f of files) await Deno.copyFile(`${root}dist/${f}`, `${empty}/${f}`);
  const env = { DENO_DIR: `${empty}/deno-dir` };
  const offline = await offlinePrefix();
  const [cmd, ...pre] = [...offline, Deno.execPath()];
  const bundleRun = [...pre, "run", "-A", V8_FLAGS_ARG, "--no-remote", "infermeter.js"];
  const version = await run(cmd, [...bundleRun, "--version"], empty, env);
  const help = await run(cmd, [...bundleRun, "profile", "--help"], empty, env);
  const demo = await run(cmd, [...bundleRun, "demo"], empty, env);
  if (!version.ok || !help.ok || !help.out.includes("--streaming")) {
    console.error(`the bundle does not run from an empty directory:\n${version.out}\n${help.out}`);
    Deno.exit(1);
  }
  if (!demo.ok || !demo.out.includes("Request Count")) {
    console.error(`the bundle's demo failed:\n${demo.out}`);
    Deno.exit(1);
  }
  const runDir = /Results saved to: (\S+?)\/?$/m.exec(demo.out)?.[1] ?? "artifacts";
  const plot = await run(cmd, [...bundleRun, "plot", runDir, "--output", "plots"], empty, env);
  const png = await Deno.stat(`${empty}/plots/ttft_distribution.png`).then((s) => s.size, () => 0);
  const report = await Deno.stat(`${empty}/plots/report.html`).then((s) => s.size, () => 0);
  if (!plot.ok || png < 10_000 || report < 1_000_000) {
    console.error(`the bundle's plot failed (PNG ${png} bytes, report ${report} bytes):\n${plot.out}`);
    Deno.exit(1);
  }
  console.log(
    `dist/infermeter.js (${(size / 1024).toFixed(1)} kB) and dist/infermeter/ (${files.length - 1} modules loaded on ` +
      `use, ${(total / 1024 / 1024).toFixed(2)} MB in all) run from an empty directory with an empty ` +
      `DENO_DIR${offline.length > 0 ? " and no network (a namespace with only loopback)" : ""}: version ` +
      `${version.out.trim()}, demo benchmark completed, its charts and report.html plotted`,
  );
  console.log(
    `Copy infermeter.js and infermeter/ together; use it with: deno run -A ${V8_FLAGS_ARG} infermeter.js profile --help`,
  );
} finally {
  await Deno.remove(empty, { recursive: true });
}
