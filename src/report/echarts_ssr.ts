/**
 * ECharts for server-side rendering, loaded from the text of its self-contained ES module build. Imported as text,
 * the library is a string in a bundle, not code: the bundle's start-up never parses its ~1 MB of functions, and it
 * is compiled only when a chart is drawn (`import()` of a data: URL, which needs no file and no network).
 */
import source from "echarts/dist/echarts.esm.min.mjs" with { type: "text" };

type ECharts = typeof import("echarts");

let loaded: Promise<ECharts> | undefined;

function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** The ECharts module, compiled on first use. */
export function loadECharts(): Promise<ECharts> {
  loaded ??= import(`data:text/javascript;base64,${base64(source)}`) as Promise<ECharts>;
  return loaded;
}
