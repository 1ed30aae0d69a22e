/**
 * `infermeter plugins [category] [name]`: what infermeter is built from, as AIPerf's `aiperf plugins` lists its
 * plugins — the package summary, every category (`--all`), one category's entries, or one entry's details — and a
 * check of the registries (`--validate`). Tables go to stdout; `--json` prints the same as JSON.
 */
import { ConfigError } from "../config/config_error.ts";
import { parseCommandArgs } from "../config/parse_command_args.ts";
import { isHelpRequest } from "../config/read_cli_args.ts";
import { renderHelp } from "../config/render_help.ts";
import { didYouMeanHint } from "../base/did_you_mean.ts";
import { VERSION } from "../base/version.ts";
import { renderBoxTable, wrapText } from "../export/box_table.ts";
import { EXIT } from "./exit_codes.ts";
import { PLUGINS_COMMAND } from "./plugins_command.ts";
import {
  type CatalogCategory,
  type CatalogEntry,
  findCategory,
  pluginCatalog,
  validateCatalog,
} from "./plugin_catalog.ts";

export interface PluginsIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Width tables are fitted to. @default 100 */
  readonly columns?: number;
}

const DEFAULT_IO: PluginsIo = {
  stdout: (text) => console.log(text.replace(/\n$/, "")),
  stderr: (text) => console.error(text.replace(/\n$/, "")),
  columns: Deno.stdout.isTerminal() ? Deno.consoleSize().columns : 100,
};

function entryJson(e: CatalogEntry): Record<string, unknown> {
  return { name: e.name, description: e.description, ...Object.fromEntries(e.facts) };
}

function overview(catalog: readonly CatalogCategory[], width: number): string {
  const total = catalog.reduce((n, c) => n + c.entries.length, 0);
  const packages = renderBoxTable(
    [
      { header: "Package", justify: "left" },
      { header: "Version", justify: "left" },
      { header: "Plugins" },
      { header: "Description", justify: "left", wrap: true },
    ],
    [["infermeter", VERSION, String(total), "Built-in endpoint types, datasets, load strategies, outputs, metrics"]],
    { title: "Installed Packages", maxWidth: width },
  );
  return `${packages}\n\nUsage: infermeter plugins --all to see all categories and plugins\n`;
}

function allCategories(catalog: readonly CatalogCategory[], width: number): string {
  return renderBoxTable(
    [{ header: "Category", justify: "left" }, { header: "Plugins", justify: "left", wrap: true }],
    catalog.map((c) => [c.title, c.entries.map((e) => e.name).join(", ")]),
    { title: "Plugin Categories", maxWidth: width },
  ) + "\n";
}

function categoryTable(category: CatalogCategory, width: number): string {
  const rows = category.entries.map((e) => [e.name, e.description]);
  for (const [name, why] of Object.entries(category.notBuilt)) rows.push([name, `Not built yet: ${why}.`]);
  const table = renderBoxTable(
    [{ header: "Type", justify: "left" }, { header: "Description", justify: "left", wrap: true }],
    rows,
    { title: category.title, maxWidth: width },
  );
  return `${wrapText(category.description, width).join("\n")}\n\n${table}\n`;
}

function entryDetails(category: CatalogCategory, entry: CatalogEntry, width: number): string {
  const inner = Math.max(20, width - 4);
  const label = Math.max(8, ...entry.facts.map(([k]) => k.length)) + 2;
  const lines = [
    `Type: ${entry.name}`,
    `Category: ${category.name}`,
    `Package: infermeter`,
    ...entry.facts.flatMap(([k, v]) =>
      wrapText(v, Math.max(10, inner - label)).map((line, i) =>
        (i === 0 ? `${k}:`.padEnd(label) : " ".repeat(label)) + line
      )
    ),
    "",
    ...wrapText(entry.description, inner),
  ];
  const top = `╭${"─".repeat(inner + 2)}╮`;
  const title = ` ${category.name}:${entry.name} `;
  const at = Math.max(1, Math.floor((inner + 2 - title.length) / 2));
  const head = top.slice(0, at + 1) + title + top.slice(at + 1 + title.length);
  return [
    head.length === top.length ? head : top,
    ...lines.map((l) => `│ ${l.padEnd(inner)} │`),
    `╰${"─".repeat(inner + 2)}╯`,
    "",
  ].join("\n");
}

export async function runPlugins(args: string[], io: PluginsIo = DEFAULT_IO): Promise<number> {
  if (isHelpRequest(args)) {
    io.stdout(renderHelp(PLUGINS_COMMAND));
    return EXIT.OK;
  }
  let parsed;
  try {
    parsed = parseCommandArgs(PLUGINS_COMMAND, args);
    if (parsed.operands.length > 2) {
      throw new ConfigError([`too many operands (${parsed.operands.join(" ")}); give a category and a name at most`]);
    }
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    io.stderr(`error: ${e.message}\n`);
    return EXIT.USAGE;
  }
  const width = io.columns ?? 100;
  const catalog = await pluginCatalog();
  const { values, operands } = parsed;
  if (values.validate) {
    io.stdout("Validating plugins...\n");
    const problems = validateCatalog(catalog);
    for (const p of problems) io.stdout(`(FAIL) ${p}\n`);
    if (problems.length > 0) return EXIT.REQUESTS_FAILED;
    io.stdout("(OK) Registries\n\nAll checks passed\n");
    return EXIT.OK;
  }
  const [categoryName, entryName] = operands;
  if (categoryName === undefined) {
    if (values.json) {
      io.stdout(
        JSON.stringify(
          catalog.map((c) => ({ category: c.name, title: c.title, plugins: c.entries.map((e) => e.name) })),
          null,
          2,
        ) + "\n",
      );
    } else io.stdout(values.all ? allCategories(catalog, width) : overview(catalog, width));
    return EXIT.OK;
  }
  const category = findCategory(catalog, categoryName);
  if (category === undefined) {
    const names = catalog.flatMap((c) => [c.name, ...c.aliases]);
    io.stderr(
      `error: no plugin category '${categoryName}';${didYouMeanHint(categoryName, names)} categories: ` +
        `${catalog.map((c) => c.name).join(", ")}.\n`,
    );
    return EXIT.USAGE;
  }
  if (entryName === undefined) {
    io.stdout(
      values.json
        ? JSON.stringify({ category: category.name, plugins: category.entries.map(entryJson) }, null, 2) + "\n"
        : categoryTable(category, width),
    );
    return EXIT.OK;
  }
  const entry = category.entries.find((e) => e.name === entryName);
  if (entry === undefined) {
    const why = category.notBuilt[entryName];
    io.stderr(
      why !== undefined
        ? `error: ${category.name} '${entryName}' is not built yet in infermeter: ${why}.\n`
        : `error: no ${category.name} '${entryName}';${
          didYouMeanHint(entryName, category.entries.map((e) => e.name))
        } run 'infermeter plugins ${category.name}' for the list.\n`,
    );
    return EXIT.USAGE;
  }
  io.stdout(values.json ? JSON.stringify(entryJson(entry), null, 2) + "\n" : entryDetails(category, entry, width));
  return EXIT.OK;
}
