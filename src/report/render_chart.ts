/**
 * Charts to SVG on the server with Apache ECharts' SSR renderer (no DOM), and SVG to PNG with resvg compiled to
 * WebAssembly. Both are imported when first used, so commands that draw nothing never load them. The chart library is
 * imported as text and the wasm module and the font as bytes, so a bundle or compiled binary carries them, works
 * offline, and never parses them at start-up.
 */
import type { ChartOption } from "./chart_specs.ts";

/** Pixel size of rendered charts. */
export const CHART_WIDTH = 900;
export const CHART_HEIGHT = 480;

/** The SVG text of one chart. */
export async function renderChartSvg(option: ChartOption, width = CHART_WIDTH, height = CHART_HEIGHT): Promise<string> {
  const echarts = await (await import("./echarts_ssr.ts")).loadECharts();
  const chart = echarts.init(null, null, { renderer: "svg", ssr: true, width, height });
  try {
    chart.setOption(option);
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

let ready: Promise<typeof import("./svg_rasterizer.ts")> | undefined;

/** A PNG of an SVG (from {@link renderChartSvg}), at twice its size for sharp text. */
export async function svgToPng(svg: string): Promise<Uint8Array> {
  ready ??= import("./svg_rasterizer.ts").then(async (m) => {
    await m.initRasterizer();
    return m;
  });
  return (await ready).rasterize(svg);
}
