/** One `--goodput` SLO: `tag:value` in the metric's display unit (declared here so option tables can type it). */
export interface GoodputSlo {
  readonly tag: string;
  readonly value: number;
}
