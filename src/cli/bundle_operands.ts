/**
 * Run bundles given where a run directory is expected (`compare run.bundle.tar.gz artifacts/replay`): each bundle is
 * checked like `replay` checks it and its summary and records are unpacked, with a run manifest naming them, into a
 * temporary run directory named after the original's, removed when the command is done.
 */
import { MANIFEST_FILE, MANIFEST_SCHEMA_VERSION, type ManifestFile, renderManifest } from "../export/run_manifest.ts";
import { readRunBundle } from "../dataset/run_bundle.ts";
import { VERSION } from "../base/version.ts";
import { joinPath } from "../runtime/file_path.ts";
import { ReportError } from "../report/report_error.ts";
import { DatasetError } from "../dataset/dataset_error.ts";

export class BundleOperands implements AsyncDisposable {
  #dir: string | undefined;
  /** Unpacked run directory → the bundle it came from. */
  readonly #from = new Map<string, string>();

  /** `operands` with each bundle file replaced by its unpacked run directory. @throws {ReportError} for a bad bundle. */
  async unpack(operands: readonly string[]): Promise<string[]> {
    const out: string[] = [];
    for (const operand of operands) {
      if (!operand.endsWith(".tar.gz") || !(await isFile(operand))) {
        out.push(operand);
        continue;
      }
      out.push(await this.#unpackOne(operand));
    }
    return out;
  }

  /** How to name a path of an unpacked run: the bundle's path in its place. */
  shown(path: string): string {
    for (const [dir, bundle] of this.#from) {
      if (path === dir || path.startsWith(`${dir}/`)) return `${bundle} (bundle)`;
    }
    return path;
  }

  async #unpackOne(path: string): Promise<string> {
    let bundle;
    try {
      bundle = await readRunBundle(path);
    } catch (err) {
      if (err instanceof DatasetError) throw new ReportError(err.message);
      throw err;
    }
    this.#dir ??= await Deno.makeTempDir({ prefix: "infermeter_bundle_" });
    const dir = joinPath(this.#dir, String(this.#from.size), bundle.run.artifact_dir || "run");
    await Deno.mkdir(dir, { recursive: true });
    const files: ManifestFile[] = [];
    for (const entry of bundle.manifest.members) {
      if (entry.role !== "summary_json" && entry.role !== "records_jsonl") continue;
      await Deno.writeFile(joinPath(dir, entry.name), bundle.member(entry.role)!);
      files.push({
        role: entry.role,
        label: entry.role === "summary_json" ? "JSON Export" : "JSONL Export",
        path: entry.name,
      });
    }
    if (files.every((f) => f.role !== "summary_json")) {
      throw new ReportError(`${path}: the bundle holds no summary (its run wrote none); nothing to compare.`);
    }
    await Deno.writeTextFile(
      joinPath(dir, MANIFEST_FILE),
      renderManifest({
        producer: "infermeter",
        version: VERSION,
        schema_version: MANIFEST_SCHEMA_VERSION,
        kind: "run",
        files,
      }),
    );
    this.#from.set(dir, path);
    return dir;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    if (this.#dir !== undefined) await Deno.remove(this.#dir, { recursive: true }).catch(() => {});
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}
