/**
 * User-centric rate (AIPerf `--user-centric-rate Q --num-users U`, LMBenchmark-style KV-cache benchmarking): U
 * users, each a session whose turns start `gap = U / Q` seconds apart (a turn waits for the previous answer:
 * `next = max(answer time, previous due + gap)`), so together they send Q requests per second.
 *
 * Steady state from t = 0 (AIPerf's "virtual history"): with sessions of T turns (the dataset's mean, rounded),
 * a lifetime of L = max(1, T − 1) gaps, user i (0-based) of U is (U − i)·L/U gaps into its session and sends
 * its remaining `L − ⌊(U − i)·L / U⌋` turns; users with none left are skipped, and one fresh user with every turn
 * starts at t = 0 in their place. They start in a staggered order `1/Q` apart (slot `(U − i)·L mod U`, or
 * `i·step mod U` with the smallest step > 1 coprime to U when gcd(U, L) > 1). Each user that starts schedules
 * its replacement at `its start + its turns × gap`, an absolute schedule that does not follow response times.
 */
import { SessionCap } from "./session_cap.ts";
import { splitCap } from "./split_evenly.ts";
import type { Clock } from "./clock.ts";
import { defineLoadStrategy, type LoadStrategy, type StrategyContext, type Tick } from "./load_strategy.ts";
import { definedFields, plural, rateText, secondsText } from "./describe_load.ts";
import { scheduleSpanProblem } from "./schedule_limits.ts";
import type { OptionSpec } from "../base/option_spec.ts";
import { MAX_REQUEST_RATE } from "./load_limits.ts";

export interface UserCentricOptions {
  /** Requests per second over all users. */
  readonly rate: number;
  readonly users: number;
  /** Turns per session, the dataset's mean rounded (AIPerf `average_turn_count`). */
  readonly sessionTurns: number;
  /** Most sessions in flight; undefined = no cap. */
  readonly concurrency?: number;
}

/** A planned user start: offset from the phase start (ms) and how many of its turns it sends. */
export interface UserStart {
  readonly atMs: number;
  /** Undefined: every turn of its conversation. */
  readonly maxTurns?: number;
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/** Smallest step > 1 coprime with n (1 when n ≤ 2): visits every position of 0…n−1 once. */
function alternateStep(n: number): number {
  for (let step = 2; step < n; step++) if (gcd(n, step) === 1) return step;
  return 1;
}

/** The users that start the phase, in AIPerf's order and staggering (see the file comment). */
export function initialUsers(o: Pick<UserCentricOptions, "rate" | "users" | "sessionTurns">): UserStart[] {
  const n = o.users;
  const lifetime = Math.max(1, o.sessionTurns - 1);
  const staggerMs = 1000 / o.rate;
  const alternate = gcd(n, lifetime) > 1;
  const step = alternate ? alternateStep(n) : 1;
  const users: UserStart[] = [];
  for (let i = 0; i < n; i++) {
    const virtualAge = (n - i) * lifetime;
    const turns = lifetime - Math.floor(virtualAge / n);
    if (turns <= 0) continue;
    const slot = alternate ? (i * step) % n : virtualAge % n;
    users.push({ atMs: (n - slot) * staggerMs, maxTurns: turns });
  }
  users.push({ atMs: 0 });
  return users;
}

/** A binary min-heap of user starts by time. */
class StartHeap {
  readonly #items: UserStart[] = [];
  get size(): number {
    return this.#items.length;
  }
  push(item: UserStart): void {
    const a = this.#items;
    a.push(item);
    for (let i = a.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (a[parent].atMs <= a[i].atMs) break;
      [a[parent], a[i]] = [a[i], a[parent]];
      i = parent;
    }
  }
  pop(): UserStart | undefined {
    const a = this.#items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      a[0] = last;
      for (let i = 0;;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < a.length && a[l].atMs < a[m].atMs) m = l;
        if (r < a.length && a[r].atMs < a[m].atMs) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i], a[m]];
        i = m;
      }
    }
    return top;
  }
}

class UserCentricStrategy extends SessionCap implements LoadStrategy {
  readonly pacesContinuations = false;
  readonly #starts = new StartHeap();
  readonly #gapMs: number;
  readonly #clock: Clock;
  readonly #start: number;

  constructor(o: UserCentricOptions, ctx: StrategyContext) {
    super(o.concurrency);
    this.#gapMs = o.users / o.rate * 1000;
    // Shard i of n runs users i, i + n, …: their replacements stay on it.
    initialUsers(o).forEach((u, j) => {
      if (j % ctx.shardCount === ctx.shardIndex) this.#starts.push(u);
    });
    this.#clock = ctx.clock;
    this.#start = ctx.startedAt;
  }

  async nextTick(stop: AbortSignal, deadline: number): Promise<Tick | undefined> {
    const next = this.#starts.pop();
    if (next === undefined || stop.aborted) return undefined;
    const scheduledAt = this.#start + next.atMs;
    if (scheduledAt >= deadline) return undefined;
    await this.#clock.sleepUntil(scheduledAt, stop);
    if (stop.aborted) return undefined;
    return next.maxTurns === undefined ? { scheduledAt } : { scheduledAt, maxTurns: next.maxTurns };
  }

  sessionStarted(tick: Tick, turns: number): void {
    const at = (tick.scheduledAt ?? this.#clock.now()) - this.#start;
    this.#starts.push({ atMs: at + turns * this.#gapMs });
  }

  nextTurnDue(previousDue: number, now: number): number {
    return Math.max(now, previousDue + this.#gapMs);
  }
}

/** The options of the user-centric mode. */
const USER_CENTRIC_OPTIONS = [
  {
    key: "userCentricRate",
    type: "float",
    min: 0,
    max: MAX_REQUEST_RATE,
    exclusiveMin: true,
    flags: ["--user-centric-rate"],
    group: "User-Centric Rate",
    metavar: "<req/s>",
    yaml: ["benchmark.phases.profiling.user_centric_rate"],
    requires: [{ key: "numUsers", why: "needs the number of users" }],
    help: "Total request rate of --num-users users, each a session whose turns start num_users / rate seconds " +
      "apart (a turn also waits for the previous answer); finished users are replaced on a fixed schedule.",
  },
  {
    key: "numUsers",
    type: "int",
    min: 1,
    max: 1_000_000,
    flags: ["--num-users"],
    group: "User-Centric Rate",
    metavar: "<int>",
    yaml: ["benchmark.phases.profiling.users"],
    requires: [{ key: "userCentricRate", why: "sets how many users --user-centric-rate runs" }],
    help: "Number of users for --user-centric-rate.",
  },
] as const satisfies readonly OptionSpec[];

export const USER_CENTRIC_STRATEGY = defineLoadStrategy({
  name: "user_centric_rate",
  description: "N users, each a session sending its turns num_users/rate seconds apart, together at the rate.",
  options: USER_CENTRIC_OPTIONS,
  selectedBy: ["userCentricRate"],
  openLoop: true,
  /** Users run whole sessions: AIPerf waits for all of them after the duration unless told otherwise. */
  waitsForSessions: true,
  validate(values) {
    const problems: string[] = [];
    const count = values.value("requestCount");
    const users = values.value("numUsers");
    if (typeof count === "number" && typeof users === "number" && count < users) {
      problems.push(
        `--request-count (${count}) must be at least --num-users (${users}): each user needs at least one request.`,
      );
    }
    const span = scheduleSpanProblem(values, "userCentricRate");
    if (span !== undefined) problems.push(span);
    return { problems };
  },
  plan: ({ values, dataset, concurrency }) => ({
    options: definedFields<UserCentricOptions>({
      rate: values.userCentricRate!,
      users: values.numUsers!,
      sessionTurns: Math.max(1, Math.round(dataset.totalTurns / Math.max(1, dataset.conversations))),
      concurrency,
    }),
  }),
  describe: (o) =>
    `${plural(o.users, "user")} at ${rateText(o.rate)} in all, each sending a turn every ` +
    `${secondsText(o.users / o.rate * 1000)}` +
    (o.concurrency !== undefined ? `, at most ${o.concurrency} in flight` : ""),
  /** Users are dealt round-robin to shards (each shard plans all, runs its own); a cap splits evenly. */
  split(o: UserCentricOptions, i: number, n: number) {
    const concurrency = splitCap(o.concurrency, i, n);
    return { options: { ...o, concurrency }, weight: 1, layout: "interleaved" as const };
  },
  create: (o: UserCentricOptions, ctx: StrategyContext) => new UserCentricStrategy(o, ctx),
});
