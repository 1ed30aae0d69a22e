/**
 * Builds infermeter's container image offline, from the bundle and the Deno binary, with no registry, daemon or
 * image tool: the OCI image layout is written directly (oci_layout.ts). The image holds the Deno binary and the
 * C libraries it links (copied from this machine, as `ldd` lists them), `dist/infermeter.js` and the folder of
 * modules it loads on use, `dist/infermeter/` (bundled from this source tree first, unless `--bundle` names one), a non-root user
 * (65532) and a `/tmp`; its entrypoint runs the bundle with infermeter's V8 flags, so `kube run --image <name>`
 * runs its shard pods with it (the pods set only the arguments: `kube shard`).
 *
 *   deno run -A scripts/image/build_oci.ts [--name infermeter:<version>] [--out dist/image]
 *     [--archive dist/infermeter-image.oci.tar] [--bundle dist/infermeter.js] [--deno <path>]
 *
 * Then, for example: `ctr -n k8s.io images import dist/infermeter-image.oci.tar` (containerd),
 * `podman load -i …`, or `skopeo copy oci-archive:… docker://registry/infermeter:<version>`.
 */
import { dirname, join } from "node:path";
import { VERSION } from "../../src/base/version.ts";
import { V8_FLAGS_ARG } from "../../src/runtime/v8_flags.ts";
import { type LayerEntry, layoutArchive, ociImage } from "./oci_layout.ts";
import { buildBundle, bundleFiles } from "../release/build_bundle.ts";

const root = new URL("../../", import.meta.url).pathname;

function option(name: string, fallback: string): string {
  const at = Deno.args.indexOf(`--${name}`);
  return at >= 0 && Deno.args[at + 1] !== undefined ? Deno.args[at + 1] : fallback;
}

/** `infermeter:1.0` → `docker.io/library/infermeter:1.0`, as a kubelet resolves an image name. */
export function normalizedImageName(name: string): string {
  const withTag = /:[^/]+$/.test(name) ? name : `${name}:latest`;
  const first = withTag.split("/")[0];
  const hasDomain = withTag.includes("/") && (first.includes(".") || first.includes(":") || first === "localhost");
  if (hasDomain) return withTag;
  return withTag.includes("/") ? `docker.io/${withTag}` : `docker.io/library/${withTag}`;
}

/** The shared objects a dynamically linked binary loads (`ldd`), each as [path in the image, file on this host]. */
async function linkedLibraries(binary: string): Promise<[string, string][]> {
  const out = await new Deno.Command("ldd", { args: [binary], stdout: "piped", stderr: "piped" }).output();
  if (!out.success) throw new Error(`ldd ${binary}: ${new TextDecoder().decode(out.stderr).trim()}`);
  const libs: [string, string][] = [];
  for (const line of new TextDecoder().decode(out.stdout).split("\n")) {
    const m = line.match(/=>\s+(\/\S+)/) ?? line.match(/^\s*(\/\S+)\s+\(/);
    if (m) libs.push([m[1], await Deno.realPath(m[1])]);
  }
  return libs;
}

if (import.meta.main) {
  const name = normalizedImageName(option("name", `infermeter:${VERSION}`));
  const outDir = option("out", `${root}dist/image`);
  const archive = option("archive", `${root}dist/infermeter-image.oci.tar`);
  // From this source tree unless a bundle is given: an image never carries a stale one.
  const given = Deno.args.includes("--bundle");
  const bundle = option("bundle", `${root}dist/infermeter.js`);
  const denoBin = await Deno.realPath(option("deno", Deno.execPath()));
  if (!given) {
    console.error(`bundling into ${bundle}`);
    await Deno.mkdir(`${root}dist`, { recursive: true });
    const b = await buildBundle(root, bundle);
    if (!b.ok) {
      console.error(b.out);
      Deno.exit(1);
    }
  }
  const read = (p: string) => Deno.readFile(p);
  const entries: LayerEntry[] = [
    { path: "usr/local/bin/deno", type: "file", data: await read(denoBin), mode: 0o755 },
    ...await Promise.all(
      (await bundleFiles(bundle)).map(async (f) => ({
        path: `app/${f}`,
        type: "file" as const,
        data: await read(join(dirname(bundle), f)),
      })),
    ),
    { path: "tmp", type: "dir", mode: 0o1777 },
    {
      path: "etc/passwd",
      type: "file",
      data: new TextEncoder().encode(
        "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532::/tmp:/sbin/nologin\n",
      ),
    },
    { path: "etc/group", type: "file", data: new TextEncoder().encode("root:x:0:\nnonroot:x:65532:\n") },
  ];
  for (const [path, file] of await linkedLibraries(denoBin)) {
    entries.push({ path: path.slice(1), type: "file", data: await read(file), mode: 0o755 });
  }
  const image = await ociImage(name, entries, {
    user: "65532:65532",
    env: [
      "PATH=/usr/local/bin:/usr/bin:/bin",
      "HOME=/tmp",
      "TMPDIR=/tmp",
      "DENO_DIR=/tmp/deno",
      "DENO_NO_UPDATE_CHECK=1",
    ],
    entrypoint: ["/usr/local/bin/deno", "run", "-A", V8_FLAGS_ARG, "/app/infermeter.js"],
    cmd: ["--help"],
    workingDir: "/tmp",
    labels: {
      "org.opencontainers.image.title": "infermeter",
      "org.opencontainers.image.version": VERSION,
      "org.opencontainers.image.description": "LLM inference benchmark client (AIPerf-compatible)",
    },
  });
  await Deno.remove(outDir, { recursive: true }).catch(() => {});
  for (const [path, data] of image.files) {
    await Deno.mkdir(`${outDir}/${path.slice(0, path.lastIndexOf("/") + 1)}`, { recursive: true });
    await Deno.writeFile(`${outDir}/${path}`, data);
  }
  await Deno.writeFile(archive, layoutArchive(image));
  const layerMb = (image.files.get(`blobs/sha256/${image.layerDigest.slice(7)}`)!.length / 1e6).toFixed(1);
  console.log(`image ${name}`);
  console.log(`  manifest ${image.manifestDigest}, one layer of ${layerMb} MB`);
  console.log(`  layout   ${outDir}`);
  console.log(`  archive  ${archive}`);
}
