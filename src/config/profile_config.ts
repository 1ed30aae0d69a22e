/**
 * The validated, frozen configuration of one `profile` run, built only from the option table (`option_table.ts`)
 * by layering defaults < YAML < env < flags; everything downstream reads this and nothing else.
 *
 * Its fields are derived from the table (`OptionValues`): one field per option key, typed by the option's type, and
 * optional where the option has no default, is not required and no rule fills it (the table's help and
 * `defaultDescription` say what an absent field means). Only fields computed from others are declared here.
 */
import type { GoodputSlo } from "../metrics/goodput.ts";
import type { LogLevel } from "../ui/logger.ts";
import type { ProfileOptionTable } from "./option_table.ts";
import type { OptionValues } from "../base/option_values.ts";

export type { GoodputSlo, LogLevel };

export interface ProfileConfig extends OptionValues<ProfileOptionTable> {
  /** True when `--artifact-dir` was given explicitly (then no per-run subdirectory is added). */
  readonly artifactDirExplicit: boolean;
}

export type ArrivalPattern = ProfileConfig["arrivalPattern"];
export type ConnectionReuseStrategy = ProfileConfig["connectionReuseStrategy"];
export type UiType = ProfileConfig["ui"];
export type ExportLevel = ProfileConfig["exportLevel"];
