/**
 * The source of ECharts' minified browser build, imported as text so a bundle or compiled binary carries it: the
 * HTML report inlines it and draws its charts with no network. Imported only when a report is written.
 */
import source from "echarts/dist/echarts.min.js" with { type: "text" };

export const ECHARTS_BROWSER_JS: string = source;
