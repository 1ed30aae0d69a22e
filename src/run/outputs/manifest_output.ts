/** `run_manifest.json`: the files this run wrote, by role, with the producer and its version; written last. */
import { MANIFEST_FILE, MANIFEST_SCHEMA_VERSION, relativeTo, renderManifest } from "../../export/run_manifest.ts";
import { VERSION } from "../../base/version.ts";
import type { Output } from "./output.ts";

export const MANIFEST_OUTPUT: Output = {
  name: "manifest",
  description: "run_manifest.json: every file the run wrote, by role, and the tool and version that wrote them",
  enabled: () => true,
  files: () => [],
  async finish(ctx, writer) {
    const files = ctx.written.map((f) => ({ role: f.role, label: f.label, path: relativeTo(ctx.paths.dir, f.path) }));
    const text = renderManifest({
      producer: "infermeter",
      version: VERSION,
      schema_version: MANIFEST_SCHEMA_VERSION,
      kind: "run",
      files,
    });
    // Not listed in itself, nor in the footer: readers look for it by name.
    const file = { role: "other" as const, label: "Run Manifest", path: `${ctx.paths.dir}/${MANIFEST_FILE}` };
    await writer.write(file, text);
  },
};
