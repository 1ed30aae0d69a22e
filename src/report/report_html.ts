/**
 * One self-contained HTML page: styles, data and the chart library inline, and a Content-Security-Policy that
 * forbids every request (`default-src 'none'`), so opening it from disk, offline, fetches nothing. Charts are drawn
 * by ECharts' browser build from the same options the server renders to SVG, so they are interactive (tooltips,
 * zoom); the page's text (identity, tables, errors, footer) needs no script.
 */
import type { ChartSpec } from "./chart_specs.ts";

/** A titled table. */
export interface HtmlTable {
  readonly caption?: string;
  readonly header: readonly string[];
  readonly rows: readonly (readonly string[])[];
  /** Columns (by index) aligned left; others are right-aligned numbers. @default [0] */
  readonly leftColumns?: readonly number[];
}

/** A part of the page, in order. */
export type HtmlSection =
  | { readonly kind: "heading"; readonly text: string }
  | { readonly kind: "facts"; readonly facts: readonly (readonly [string, string])[] }
  | { readonly kind: "table"; readonly table: HtmlTable }
  | {
    readonly kind: "pre";
    readonly title: string;
    readonly text: string;
    readonly open?: boolean;
    /** Long lines wrap (a command line) instead of scrolling (a box table). */
    readonly wrap?: boolean;
  }
  | { readonly kind: "charts"; readonly charts: readonly ChartSpec[] }
  | { readonly kind: "note"; readonly text: string }
  /** The answer first: figures as cards, then one line per verdict (✓ or ✗). */
  | {
    readonly kind: "cards";
    readonly cards: readonly { readonly label: string; readonly value: string; readonly sub?: string }[];
    readonly verdicts: readonly { readonly ok: boolean; readonly text: string }[];
  };

export interface ReportPage {
  readonly title: string;
  readonly subtitle?: string;
  readonly sections: readonly HtmlSection[];
  /** Footer lines (the client's own cost, the producing tool). */
  readonly footer: readonly string[];
}

/** Escapes text for element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON safe inside a `<script>` element: no `</script`, `<!--` or line separators can end or confuse it. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

/** Inline script text: a literal `</script` inside it would end the element early. */
function scriptText(code: string): string {
  return code.replace(/<\/script/gi, "<\\/script");
}

const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; " +
  "connect-src 'none'; form-action 'none'; base-uri 'none'";

const STYLE = `
:root { color-scheme: light; --fg: #1d2329; --muted: #5b6670; --line: #dde3e8; --head: #f3f6f8; --accent: #2f5fb3; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--fg); background: #fafbfc; }
header { background: #1d2b3a; color: #fff; padding: 18px 28px; }
header h1 { margin: 0; font-size: 20px; font-weight: 600; }
header p { margin: 4px 0 0; color: #c8d3de; }
main { max-width: 1280px; margin: 0 auto; padding: 8px 28px 28px; }
h2 { font-size: 17px; margin: 28px 0 10px; padding-bottom: 4px; border-bottom: 2px solid var(--line); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 18px; margin: 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; word-break: break-all; }
table { border-collapse: collapse; background: #fff; margin: 6px 0 14px; font-variant-numeric: tabular-nums; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { border: 1px solid var(--line); padding: 4px 10px; text-align: right; }
th { background: var(--head); font-weight: 600; }
td.l, th.l { text-align: left; }
pre { background: #fff; border: 1px solid var(--line); padding: 10px; overflow-x: auto; font-size: 12px; line-height: 1.25; }
pre.wrap { white-space: pre-wrap; word-break: break-all; }
details summary { cursor: pointer; color: var(--accent); margin: 6px 0; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); gap: 16px; }
.chart { background: #fff; border: 1px solid var(--line); height: 440px; }
.note { color: var(--muted); }
.cards { display: flex; flex-wrap: wrap; gap: 12px; margin: 14px 0 6px; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 10px 16px; min-width: 150px; }
.card .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.card .value { font-size: 22px; font-weight: 600; font-variant-numeric: tabular-nums; }
.card .sub { color: var(--muted); font-size: 12px; }
ul.verdicts { list-style: none; padding: 0; margin: 6px 0; }
ul.verdicts li.ok::before { content: "✓ "; color: #1b7f3b; font-weight: 700; }
ul.verdicts li.fail::before { content: "✗ "; color: #b3261e; font-weight: 700; }
footer { max-width: 1280px; margin: 0 auto; padding: 12px 28px 28px; color: var(--muted); border-top: 1px solid var(--line); }
footer p { margin: 2px 0; }
`;

/** Draws every chart of the page from the inline options; a chart that fails to draw says so in its box. */
const BOOT = `
(function () {
  var specs = JSON.parse(document.getElementById("chart-options").textContent);
  var charts = [];
  specs.forEach(function (spec) {
    var el = document.getElementById(spec.element);
    if (!el) return;
    var option = spec.option;
    option.toolbox = { right: 10, feature: { dataZoom: {}, restore: {}, saveAsImage: {} } };
    var chart = echarts.init(el, null, { renderer: "svg" });
    chart.setOption(option);
    charts.push(chart);
  });
  window.addEventListener("resize", function () { charts.forEach(function (c) { c.resize(); }); });
  document.body.setAttribute("data-charts-drawn", String(charts.length));
})();
`;

function renderTable(t: HtmlTable): string {
  const left = new Set(t.leftColumns ?? [0]);
  const cls = (i: number) => (left.has(i) ? ' class="l"' : "");
  const head = t.header.map((h, i) => `<th${cls(i)}>${escapeHtml(h)}</th>`).join("");
  const body = t.rows.map((row) => `<tr>${row.map((c, i) => `<td${cls(i)}>${escapeHtml(c)}</td>`).join("")}</tr>`)
    .join("\n");
  const caption = t.caption === undefined ? "" : `<caption>${escapeHtml(t.caption)}</caption>`;
  return `<table>${caption}<thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

/** The page's HTML. `echartsScript` is the browser build's source (omitted: the charts are left out). */
export function renderReportHtml(page: ReportPage, echartsScript: string | undefined): string {
  const chartSpecs: { element: string; id: string; option: unknown }[] = [];
  const parts = page.sections.map((s) => {
    switch (s.kind) {
      case "heading":
        return `<h2>${escapeHtml(s.text)}</h2>`;
      case "facts":
        return `<dl class="facts">${
          s.facts.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join("")
        }</dl>`;
      case "table":
        return renderTable(s.table);
      case "pre":
        return `<details${s.open ? " open" : ""}><summary>${escapeHtml(s.title)}</summary><pre${
          s.wrap ? ' class="wrap"' : ""
        }>${escapeHtml(s.text)}</pre></details>`;
      case "note":
        return `<p class="note">${escapeHtml(s.text)}</p>`;
      case "cards":
        return `<div class="cards">${
          s.cards.map((c) =>
            `<div class="card"><div class="label">${escapeHtml(c.label)}</div><div class="value">${
              escapeHtml(c.value)
            }</div>${c.sub === undefined ? "" : `<div class="sub">${escapeHtml(c.sub)}</div>`}</div>`
          ).join("")
        }</div>` + (s.verdicts.length === 0
          ? ""
          : `<ul class="verdicts">${
            s.verdicts.map((v) => `<li class="${v.ok ? "ok" : "fail"}">${escapeHtml(v.text)}</li>`).join("")
          }</ul>`);
      case "charts": {
        if (echartsScript === undefined) return "";
        const boxes = s.charts.map((c) => {
          const element = `chart-${chartSpecs.length}`;
          chartSpecs.push({ element, id: c.id, option: c.option });
          return `<div class="chart" id="${element}" data-chart="${escapeHtml(c.id)}" role="img" aria-label="${
            escapeHtml(c.title)
          }"></div>`;
        });
        return `<div class="charts">${boxes.join("\n")}</div>`;
      }
    }
  });
  const scripts = chartSpecs.length === 0 || echartsScript === undefined ? "" : [
    `<script type="application/json" id="chart-options">${scriptJson(chartSpecs)}</script>`,
    `<script>${scriptText(echartsScript)}</script>`,
    `<script>${BOOT}</script>`,
  ].join("\n");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>${escapeHtml(page.title)}</h1>${
    page.subtitle === undefined ? "" : `<p>${escapeHtml(page.subtitle)}</p>`
  }</header>
<main>
${parts.join("\n")}
</main>
<footer>${page.footer.map((line) => `<p>${escapeHtml(line)}</p>`).join("")}</footer>
${scripts}
</body>
</html>
`;
}
