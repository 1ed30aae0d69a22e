/**
 * The test node's pod sandbox image (`infermeter.local/pause:1`): one static binary built from pause.go, written
 * as an OCI archive with oci_layout.ts (no registry, daemon or image tool).
 *
 *   deno run -A scripts/kube/pause_image.ts <pause binary> <archive.oci.tar>
 */
import { layoutArchive, ociImage } from "../image/oci_layout.ts";

const [binary, archive] = Deno.args;
if (binary === undefined || archive === undefined) {
  console.error("usage: pause_image.ts <pause binary> <archive.oci.tar>");
  Deno.exit(2);
}
const image = await ociImage(
  "infermeter.local/pause:1",
  [{ path: "pause", type: "file", data: await Deno.readFile(binary), mode: 0o755 }],
  { entrypoint: ["/pause"], user: "65535:65535" },
);
await Deno.writeFile(archive, layoutArchive(image));
console.log(`infermeter.local/pause:1 ${image.manifestDigest}`);
