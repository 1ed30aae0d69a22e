/**
 * List values on the command line (AIPerf's "magic lists": `--concurrency 1,4,16`, `--request-rate 2,8`) become a
 * sweep: one profile run per value, each from the same arguments with the list replaced by one value. Several
 * lists combine as a grid (every combination, the first list outermost) or, with `--sweep-type zip`, element by
 * element (equal lengths). Each point is named AIPerf's way, `<name>_<value>` joined by `__`
 * (`concurrency_4__request_rate_2.0`), which is also its artifact subdirectory.
 */
import { ConfigError } from "../config/config_error.ts";
import type { OptionKey } from "../config/option_table.ts";
import { formatPyFloat } from "../export/number_format.ts";
import { planVariants } from "./sweep_variants.ts";
import { flagsOf } from "./option_args.ts";

/** The options a list may sweep: the configuration key, the parameter's name, whether values are integers. */
const SWEEPABLE: readonly { readonly key: OptionKey; readonly name: string; readonly int: boolean }[] = [
  { key: "concurrency", name: "concurrency", int: true },
  { key: "requestRate", name: "request_rate", int: false },
  { key: "requestCount", name: "requests", int: true },
  { key: "benchmarkDuration", name: "duration", int: false },
  { key: "numUsers", name: "users", int: true },
  { key: "prefillConcurrency", name: "prefill_concurrency", int: true },
  { key: "syntheticInputTokensMean", name: "isl", int: true },
  { key: "outputTokensMean", name: "osl", int: true },
];

export interface SweepParameterPlan {
  readonly name: string;
  readonly flag: string;
  readonly values: readonly number[];
}

export interface SweepPointPlan {
  /** Directory name and label, e.g. `concurrency_4`. */
  readonly label: string;
  readonly values: Readonly<Record<string, number>>;
  /** The command line of this point. */
  readonly args: readonly string[];
}

export interface SweepPlan {
  /** Empty when no list was given: one point, the arguments as they are. */
  readonly parameters: readonly SweepParameterPlan[];
  /** `scenarios`: named points given by `--variant` (`sweep_variants.ts`). */
  readonly type: "grid" | "zip" | "scenarios";
  readonly points: readonly SweepPointPlan[];
}

interface ListArg {
  readonly param: (typeof SWEEPABLE)[number];
  readonly flag: string;
  /** Index of the argument holding the value, and whether it is `--flag=value`. */
  readonly index: number;
  readonly inline: boolean;
  readonly values: readonly number[];
}

/** Whether the plan has several points (a sweep), rather than the arguments as they are. */
export function isSweep(plan: SweepPlan): boolean {
  return plan.type === "scenarios" || plan.parameters.length > 0;
}

/**
 * The sweep the arguments ask for: `--variant` points, or list values. Throws ConfigError for a malformed list or
 * variant, unequal zip lists, or variants beside lists.
 */
export function planSweep(args: readonly string[]): SweepPlan {
  const variants = planVariants(args);
  if (variants !== undefined) {
    const lists = planLists(variants.rest);
    if (lists.parameters.length > 0) {
      throw new ConfigError([
        `--variant declares the sweep's points; ${
          lists.parameters.map((p) => `${p.flag} ${p.values.join(",")}`).join(" and ")
        } would make another sweep: give one value, or put it in each --variant.`,
      ]);
    }
    return variants.plan;
  }
  return planLists(args);
}

function planLists(args: readonly string[]): SweepPlan {
  const lists: ListArg[] = [];
  let type: "grid" | "zip" = "grid";
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") break;
    const eq = arg.indexOf("=");
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    if (flag === "--sweep-type") {
      const value = eq > 0 ? arg.slice(eq + 1) : args[i + 1];
      if (value === "zip" || value === "grid") type = value;
      continue;
    }
    const param = SWEEPABLE.find((p) => flagsOf(p.key).includes(flag));
    if (param === undefined) continue;
    const inline = eq > 0;
    const index = inline ? i : i + 1;
    const text = inline ? arg.slice(eq + 1) : args[i + 1];
    if (text === undefined || !text.includes(",")) continue;
    const values = text.split(",").map((v) => v.trim());
    const numbers = values.map(Number);
    const bad = values.findIndex((v, j) =>
      v === "" || !Number.isFinite(numbers[j]) || (param.int && !Number.isInteger(numbers[j]))
    );
    if (bad >= 0) {
      throw new ConfigError([
        `${flag} '${text}': '${values[bad]}' is not ${param.int ? "an integer" : "a number"}; a sweep is a ` +
        `comma-separated list of values (e.g. ${flag} ${param.int ? "1,4,16" : "2,8"}).`,
      ]);
    }
    if (lists.some((l) => l.param.key === param.key)) {
      throw new ConfigError([`${flag} is given as a list twice; give each swept option once.`]);
    }
    lists.push({ param, flag, index, inline, values: numbers });
  }
  if (lists.length === 0) return { parameters: [], type, points: [{ label: "base", values: {}, args: [...args] }] };
  if (type === "zip" && lists.some((l) => l.values.length !== lists[0].values.length)) {
    throw new ConfigError([
      `--sweep-type zip pairs the lists element by element, but their lengths differ (${
        lists.map((l) => `${l.flag}: ${l.values.length}`).join(", ")
      }); give lists of equal length or use --sweep-type grid.`,
    ]);
  }
  const combos: number[][] = type === "zip"
    ? lists[0].values.map((_, j) => lists.map((l) => l.values[j]))
    : lists.reduce<number[][]>((acc, l) => acc.flatMap((c) => l.values.map((v) => [...c, v])), [[]]);
  const points = combos.map((combo) => {
    const pointArgs = [...args];
    const values: Record<string, number> = {};
    const names: string[] = [];
    lists.forEach((l, j) => {
      const v = combo[j];
      const text = l.param.int ? String(v) : formatPyFloat(v);
      pointArgs[l.index] = l.inline ? `${l.flag}=${text}` : text;
      values[l.param.name] = v;
      names.push(`${l.param.name}_${text}`);
    });
    return { label: names.join("__"), values, args: pointArgs };
  });
  return {
    parameters: lists.map((l) => ({ name: l.param.name, flag: l.flag, values: l.values })),
    type,
    points,
  };
}

export { withOptionValues } from "./option_args.ts";
