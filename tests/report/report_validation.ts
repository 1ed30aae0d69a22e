/**
 * Checks a report page without a browser: nothing in it can make a request (no external src/href/url(), a CSP that
 * forbids every fetch), its chart options are valid JSON, and its tags balance.
 */
import assert from "node:assert/strict";

/** The chart options inlined in the page. */
export interface InlineChart {
  readonly element: string;
  readonly id: string;
  readonly option: Record<string, unknown>;
}

/** Validates `html` and returns its inline chart options. */
export function validateReportHtml(html: string): InlineChart[] {
  assert.match(html, /^<!DOCTYPE html>\n<html lang="en">/);
  assert.match(html, /<\/html>\n$/);
  assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none';/);
  // Anything a browser would fetch from the markup and styles (script bodies are code, which the CSP confines):
  // attributes naming a resource, CSS url(), @import, <link>, <iframe>, <object>.
  const markup = html.replace(/(<script[^>]*>)[\s\S]*?<\/script>/g, "$1</script>");
  const fetchers = [...markup.matchAll(/\b(?:src|href|action|poster|data)\s*=\s*["']?(?!#)([^"'\s>]+)/gi)]
    .map((m) => m[1]).filter((v) => !v.startsWith("data:"));
  assert.deepEqual(fetchers, [], "no attribute may name a resource to fetch");
  assert.doesNotMatch(markup, /<link\b|<iframe\b|<object\b|<embed\b|@import/i);
  assert.doesNotMatch(markup, /url\(\s*['"]?(?!data:)/i);
  // Tags that structure the page open and close in equal numbers.
  for (const tag of ["html", "head", "body", "main", "table", "tr", "div", "details", "script", "style"]) {
    const open = html.match(new RegExp(`<${tag}[\\s>]`, "g"))?.length ?? 0;
    const close = html.match(new RegExp(`</${tag}>`, "g"))?.length ?? 0;
    assert.equal(open, close, `<${tag}> opened ${open} times, closed ${close}`);
  }
  const data = /<script type="application\/json" id="chart-options">([\s\S]*?)<\/script>/.exec(html);
  if (data === null) return [];
  const charts = JSON.parse(data[1]) as InlineChart[];
  for (const c of charts) assert.ok(html.includes(`id="${c.element}"`), `chart box ${c.element} is on the page`);
  return charts;
}
