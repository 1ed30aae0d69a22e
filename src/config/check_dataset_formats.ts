/**
 * The rules every dataset format gets without writing them: an option a format owns (`DatasetLoader.options`) has
 * no effect without an input file (a warning), is an input error when `--custom-dataset-type` names a format that
 * does not read it, and the named format's own checks (`validate`) run.
 */
import type { OptionReader } from "../base/option_spec.ts";
import type { Registry } from "../base/registry.ts";
import type { DatasetFormat } from "../dataset/dataset_loader.ts";
import { PUBLIC_DATASET_NAMES } from "../dataset/public_dataset_names.ts";

/** Result of {@link checkDatasetFormats}. */
export interface DatasetFormatReport {
  readonly problems: readonly string[];
  readonly warnings: readonly string[];
}

function keyOf(spec: { readonly flags: readonly string[] }): string | undefined {
  return "key" in spec ? (spec as { readonly key: string }).key : undefined;
}

/** Checks the format options that are set against the input file and the format named. */
export function checkDatasetFormats(values: OptionReader, loaders: Registry<DatasetFormat>): DatasetFormatReport {
  const problems: string[] = [];
  const warnings: string[] = [];
  const named = values.value("customDatasetType");
  const format = typeof named === "string" && loaders.names().includes(named) ? loaders.get(named) : undefined;
  const hasFile = values.isSet("inputFile");
  // A public dataset whose reader takes a format's options (the Weka datasets, the agent-trace options).
  const publicName = values.value("publicDataset") ?? (values.isSet("hfWekaDataset") ? "weka_hf" : undefined);
  const publicReads = typeof publicName === "string" && PUBLIC_DATASET_NAMES.names().includes(publicName)
    ? PUBLIC_DATASET_NAMES.get(publicName).reads ?? []
    : [];
  for (const owner of loaders.entries()) {
    for (const spec of owner.options ?? []) {
      const key = keyOf(spec);
      if (key === undefined || !values.isSet(key)) continue;
      const readers = loaders.entries().filter((l) =>
        (l.options ?? []).some((o) => keyOf(o) === key) || (l.reads ?? []).includes(key)
      ).map((l) => l.name);
      const formats = readers.length === 1 ? `the ${readers[0]} format` : `the ${readers.join(", ")} formats`;
      if (!hasFile && publicReads.includes(key)) continue;
      if (!hasFile) {
        warnings.push(`${values.named(key)} has no effect: it applies to an --input-file of ${formats}.`);
      } else if (format !== undefined && !readers.includes(format.name)) {
        problems.push(
          `${values.named(key)} applies to ${formats}, but ${values.named("customDatasetType")} is ` +
            `'${format.name}'; remove one of them.`,
        );
      }
    }
  }
  if (format !== undefined && hasFile) {
    const found = format.validate?.(values) ?? {};
    problems.push(...found.problems ?? []);
    warnings.push(...found.warnings ?? []);
  }
  return { problems, warnings };
}
