/**
 * The shape every custom dataset format implements, so formats register in one list (`load_dataset.ts`) and
 * auto-detection asks each of them.
 */
import type { RegistryEntry } from "../base/registry.ts";
import type { Dataset } from "./conversation.ts";

export interface DatasetLoader extends RegistryEntry {
  /** `--custom-dataset-type` value, and the `type` field a record may carry to name its format. */
  readonly name: string;
  /**
   * Whether the first non-empty record of a file (already JSON-parsed) looks like this format. Structural only:
   * a record this accepts may still fail `load()` with a precise error.
   */
  canLoad(firstRecord: unknown): boolean;
  /**
   * Read the whole file into a dataset.
   *
   * @throws {DatasetError} for unreadable files and malformed records, naming file and line.
   */
  load(path: string): Promise<Dataset>;
}
