/** Small helpers the load strategies share to plan their options and describe themselves in one line. */

/** `1 session`, `4 sessions`, `10,000 requests`. */
export function plural(n: number, noun: string): string {
  // Whole counts grouped by hand: the first `toLocaleString` of a process sets up ICU's number formatting, ~10 ms
  // on the way to a run's first request.
  const count = Number.isSafeInteger(n) ? String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",") : n.toLocaleString("en-US");
  return `${count} ${noun}${n === 1 ? "" : "s"}`;
}

/** Milliseconds as seconds for people: `30 s`, `1.5 s`, `0.25 s`. */
export function secondsText(ms: number): string {
  return `${Number((ms / 1000).toPrecision(6))} s`;
}

/** A rate in requests per second: `10 req/s`, `0.5 req/s`. */
export function rateText(perSecond: number): string {
  return `${Number(perSecond.toPrecision(6))} req/s`;
}

/** `o` without its undefined fields (plans are compared and cloned as data). */
export function definedFields<T extends object>(o: { [K in keyof T]: T[K] | undefined }): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
