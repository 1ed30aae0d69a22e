import assert from "node:assert/strict";
import { ociImage, sha256, tarArchive } from "./oci_layout.ts";
import { normalizedImageName } from "./build_oci.ts";

async function tar(args: string[], cwd: string): Promise<string> {
  const out = await new Deno.Command("tar", { args, cwd, stdout: "piped", stderr: "piped" }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}

Deno.test("oci layout: the layer is a tar that GNU tar reads back, modes, links and long paths included", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const long = `a/${"d".repeat(90)}/${"f".repeat(60)}.txt`;
    const layer = tarArchive([
      { path: "usr/local/bin/tool", type: "file", data: new TextEncoder().encode("#!x\n"), mode: 0o755 },
      { path: "tmp", type: "dir", mode: 0o1777 },
      { path: "lib64/ld.so", type: "symlink", target: "/lib/ld.so" },
      { path: long, type: "file", data: new Uint8Array(1000).fill(7) },
    ]);
    await Deno.writeFile(`${dir}/layer.tar`, layer);
    const listing = await tar(["-tvf", "layer.tar"], dir);
    assert.match(listing, /-rwxr-xr-x 0\/0 +4 1970-01-01 00:00 usr\/local\/bin\/tool/);
    assert.match(listing, /drwxrwxrwt 0\/0 +0 1970-01-01 00:00 tmp\//);
    assert.match(listing, /lib64\/ld\.so -> \/lib\/ld\.so/);
    await Deno.mkdir(`${dir}/x`);
    await tar(["-xf", "../layer.tar"], `${dir}/x`);
    assert.deepEqual(await Deno.readFile(`${dir}/x/${long}`), new Uint8Array(1000).fill(7));
    assert.equal(await Deno.readTextFile(`${dir}/x/usr/local/bin/tool`), "#!x\n");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("oci layout: index → manifest → config and layer, every digest and size consistent", async () => {
  const image = await ociImage(
    "docker.io/library/t:1",
    [{ path: "hello", type: "file", data: new TextEncoder().encode("hi") }],
    { user: "65532:65532", entrypoint: ["/hello"] },
  );
  const json = (path: string) => JSON.parse(new TextDecoder().decode(image.files.get(path)!));
  const blob = (digest: string) => `blobs/sha256/${digest.slice(7)}`;
  for (const [path, data] of image.files) {
    if (path.startsWith("blobs/")) assert.equal(await sha256(data), `sha256:${path.slice(13)}`, path);
  }
  const index = json("index.json");
  assert.equal(index.manifests[0].annotations["io.containerd.image.name"], "docker.io/library/t:1");
  assert.equal(index.manifests[0].annotations["org.opencontainers.image.ref.name"], "1");
  const manifest = json(blob(index.manifests[0].digest));
  assert.equal(manifest.layers[0].size, image.files.get(blob(image.layerDigest))!.length);
  const config = json(blob(manifest.config.digest));
  assert.deepEqual(config.rootfs.diff_ids, [image.diffId]);
  assert.equal(config.config.User, "65532:65532");
  // Deterministic: the same inputs give the same image.
  const again = await ociImage("docker.io/library/t:1", [{
    path: "hello",
    type: "file",
    data: new TextEncoder().encode("hi"),
  }], { user: "65532:65532", entrypoint: ["/hello"] });
  assert.equal(again.manifestDigest, image.manifestDigest);
});

Deno.test("image names resolve as a kubelet resolves them", () => {
  assert.equal(normalizedImageName("infermeter:0.1.0"), "docker.io/library/infermeter:0.1.0");
  assert.equal(normalizedImageName("me/infermeter"), "docker.io/me/infermeter:latest");
  assert.equal(normalizedImageName("registry.local:5000/x/infermeter:1"), "registry.local:5000/x/infermeter:1");
});

Deno.test("the Dockerfile's entrypoint carries infermeter's V8 flags", async () => {
  const { V8_FLAGS_ARG } = await import("../../src/runtime/v8_flags.ts");
  const dockerfile = await Deno.readTextFile(new URL("../../Dockerfile", import.meta.url));
  assert.ok(dockerfile.includes(`"${V8_FLAGS_ARG}"`), "Dockerfile ENTRYPOINT and src/runtime/v8_flags.ts differ");
  assert.match(dockerfile, /^USER 65532:65532$/m);
});
