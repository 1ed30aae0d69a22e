/**
 * tqdm-style progress on stderr: `Profiling: 20/20 |████████████████████████| 100% [00:35<00:00] 0.57 req/s …`.
 * Redrawn in place (≤ 10 times/s) on a TTY; on a pipe (CI) one plain line every `--progress-every` seconds.
 * For duration-bounded phases the bar follows time instead of requests.
 */

export interface ProgressBarOptions {
  readonly label: string;
  /** Total requests, when the phase is count-bounded. */
  readonly total?: number;
  /** Phase duration in ms, when time-bounded (used when `total` is undefined). */
  readonly durationMs?: number;
  readonly isTty: boolean;
  /** Where text goes (stderr). */
  readonly write: (text: string) => void;
  /** Clock for tests. @default performance.now */
  readonly now?: () => number;
  /** Bar width in characters. @default 24 */
  readonly width?: number;
  /** Figures appended to each line (rate, in flight, errors), read when it is drawn. */
  readonly stats?: () => string;
  /** Between two lines on a pipe, ms. @default 10000 */
  readonly pipeIntervalMs?: number;
}

export class ProgressBar {
  readonly #o: ProgressBarOptions;
  readonly #start: number;
  #done = 0;
  #lastDraw = -Infinity;
  #drawn = false;
  #finished = false;

  constructor(opts: ProgressBarOptions) {
    this.#o = opts;
    this.#start = this.#now();
  }

  #now(): number {
    return this.#o.now ? this.#o.now() : performance.now();
  }

  /** Count one more finished request and redraw if enough time has passed. */
  tick(n = 1): void {
    this.#done += n;
    this.#maybeDraw();
  }

  /** Redraw on a timer (duration-bounded phases move without requests finishing). */
  refresh(): void {
    this.#maybeDraw();
  }

  #maybeDraw(): void {
    const t = this.#now();
    const interval = this.#o.isTty ? 100 : this.#o.pipeIntervalMs ?? 10_000;
    if (t - this.#lastDraw < interval) return;
    this.#lastDraw = t;
    this.#draw(false);
  }

  /** Erase the in-place line so a log line can be printed (TTY only). */
  clearLine(): void {
    if (this.#o.isTty && this.#drawn && !this.#finished) this.#o.write("\r\x1b[2K");
  }

  finish(): void {
    if (this.#finished) return;
    this.#draw(true);
    this.#finished = true;
  }

  render(final: boolean): string {
    const elapsed = this.#now() - this.#start;
    const width = this.#o.width ?? 24;
    let frac: number;
    let counts: string;
    if (this.#o.total !== undefined) {
      frac = this.#o.total > 0 ? this.#done / this.#o.total : 1;
      counts = `${this.#done}/${this.#o.total}`;
    } else if (this.#o.durationMs !== undefined) {
      frac = final ? 1 : elapsed / this.#o.durationMs;
      counts = `${this.#done}`;
    } else {
      frac = final ? 1 : 0;
      counts = `${this.#done}`;
    }
    frac = Math.min(1, Math.max(0, frac));
    const filled = Math.round(frac * width);
    const bar = "█".repeat(filled) + " ".repeat(width - filled);
    const remaining = frac > 0 ? elapsed * (1 - frac) / frac : NaN;
    const stats = this.#o.stats?.() ?? "";
    const time = `${clock(elapsed)}<${Number.isFinite(remaining) ? clock(remaining) : "?"}`;
    // A pipe (CI logs) gets plain words, no bar: one line every interval.
    if (!this.#o.isTty) {
      return `${this.#o.label}: ${counts} (${Math.floor(frac * 100)}%) [${time}]${stats === "" ? "" : ` ${stats}`}`;
    }
    return `${this.#o.label}: ${counts} |${bar}| ${Math.floor(frac * 100)}% [${time}]${
      stats === "" ? "" : ` ${stats}`
    }`;
  }

  #draw(final: boolean): void {
    const line = this.render(final);
    this.#drawn = true;
    if (this.#o.isTty) this.#o.write(`\r\x1b[2K${line}${final ? "\n" : ""}`);
    else this.#o.write(line + "\n");
  }
}

/** `mm:ss` (or `h:mm:ss`) like tqdm. */
export function clock(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  const mm = String(m).padStart(2, "0");
  const ss = String(sec).padStart(2, "0");
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}
