/**
 * Reading a cumulative counter (CPU seconds) at an arbitrary instant from periodic samples: linear
 * interpolation between the two samples around it. Shared by the per-core and the per-process-tree monitors.
 */

/**
 * The value at epoch ms `at`, or undefined when `at` lies more than `slackMs` outside the sampled span.
 * `samples` are in time order; `valueOf(i)` reads sample i's counter.
 */
export function interpolateAt(
  samples: readonly { readonly at: number }[],
  valueOf: (i: number) => number,
  at: number,
  slackMs: number,
): number | undefined {
  const s = samples;
  const last = s.length - 1;
  if (s.length === 0 || at < s[0].at - slackMs || at > s[last].at + slackMs) return undefined;
  if (at <= s[0].at) return valueOf(0);
  if (at >= s[last].at) return valueOf(last);
  let lo = 0;
  let hi = last;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (s[mid].at <= at) lo = mid;
    else hi = mid;
  }
  const a = s[lo].at;
  const b = s[hi].at;
  return b === a ? valueOf(hi) : valueOf(lo) + (valueOf(hi) - valueOf(lo)) * (at - a) / (b - a);
}
