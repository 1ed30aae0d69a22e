/**
 * The report.html part for peers' metrics, pure: `peerMetricsSections` gives it as the page's own section model
 * (to splice into a `ReportPage`), `peerMetricsSectionHtml` as a standalone HTML fragment (escaped, no script).
 */
import { escapeHtml, type HtmlSection } from "../report_html.ts";
import { formatPeerValue, type PeerMetricsResult } from "./peer_metrics.ts";

function withUnit(value: number | null, unit: string): string {
  const text = formatPeerValue(value);
  return value === null || unit === "" ? text : `${text} ${unit}`;
}

/** The sections, in order: heading, what was read, the comparison with reasons, then each tool's own report. */
export function peerMetricsSections(result: PeerMetricsResult): HtmlSection[] {
  if (result.peers.length === 0) return [];
  const sections: HtmlSection[] = [
    { kind: "heading", text: "This run as other tools would report it" },
    {
      kind: "note",
      text: `Each tool's published definitions applied to this run's own records (${result.requests} requests, ` +
        `${result.successful} successful, from ${result.recordsPath}): the differences below come from the ` +
        "definitions — which requests count, which tokens, which denominator — not from different measurements.",
    },
    {
      kind: "table",
      table: {
        caption: "Why the values differ",
        header: ["Tool", "Metric", "Tool's value", "Tool's definition", "infermeter", "infermeter's value", "Why"],
        leftColumns: [0, 1, 3, 4, 6],
        rows: result.peers.flatMap((p) =>
          p.resolved.map((e) => [
            p.tool,
            `${e.metric} (${e.peerLabel})`,
            withUnit(e.peerValue, e.peerUnit),
            e.peerDefinition,
            e.infermeterKey,
            withUnit(e.infermeterValue, e.infermeterUnit),
            e.why,
          ])
        ),
      },
    },
  ];
  for (const p of result.peers) {
    sections.push({
      kind: "table",
      table: {
        caption: `${p.tool} — as it would print this run`,
        header: ["Metric", "Value"],
        rows: p.values.filter((x) => x.console ?? true).map((x) => [x.label, withUnit(x.value, x.unit)]),
      },
    });
    sections.push({
      kind: "note",
      text: `Defined in ${p.definedIn.map((c) => `${c.repository} ${c.file} (${c.function})`).join("; ")}. ${
        p.notes.join(" ")
      }`,
    });
  }
  return sections;
}

function tableHtml(t: Extract<HtmlSection, { kind: "table" }>["table"]): string {
  const left = new Set(t.leftColumns ?? [0]);
  const cls = (i: number) => (left.has(i) ? ' class="l"' : "");
  const head = t.header.map((h, i) => `<th${cls(i)}>${escapeHtml(h)}</th>`).join("");
  const body = t.rows.map((row) => `<tr>${row.map((c, i) => `<td${cls(i)}>${escapeHtml(c)}</td>`).join("")}</tr>`)
    .join("\n");
  const caption = t.caption === undefined ? "" : `<caption>${escapeHtml(t.caption)}</caption>`;
  return `<table>${caption}<thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

/** The same content as one HTML fragment (a `<section>`), every text escaped. Empty when no peer was selected. */
export function peerMetricsSectionHtml(result: PeerMetricsResult): string {
  const parts = peerMetricsSections(result).map((s) => {
    switch (s.kind) {
      case "heading":
        return `<h2>${escapeHtml(s.text)}</h2>`;
      case "note":
        return `<p class="note">${escapeHtml(s.text)}</p>`;
      case "table":
        return tableHtml(s.table);
      default:
        return "";
    }
  });
  return parts.length === 0 ? "" : `<section class="peer-metrics">\n${parts.join("\n")}\n</section>`;
}
