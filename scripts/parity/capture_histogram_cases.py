"""Runs AIPerf 0.13's own histogram percentile estimator on generated scrape series and writes the inputs and its
estimates to tests/fixtures/aiperf_0_13/histogram_estimate_cases.json, the oracle of
tests/telemetry/histogram_estimate_test.ts.

    /path/to/aiperf-venv/bin/python scripts/parity/capture_histogram_cases.py
    /path/to/aiperf-venv/bin/python scripts/parity/capture_histogram_cases.py --stdin < cases.json

With --stdin it estimates the cases it reads ({"cases": [{"les", "points"}]}) and prints them with AIPerf's estimates
(the side-by-side check feeds it the scrapes of a live run).

Each case is a series of cumulative scrapes (bucket counts per `le`, sum, count) of observations drawn from one
distribution, seeded; AIPerf learns its bucket statistics from the whole series and estimates p1..p99 of the
increase from the first to the last scrape, exactly as its server-metrics export does.
"""

import json
import pathlib

import numpy as np

from aiperf.server_metrics.histogram_percentiles import (
    accumulate_bucket_statistics,
    compute_estimated_percentiles,
)

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "tests/fixtures/aiperf_0_13/histogram_estimate_cases.json"

LATENCY_LES = ["0.3", "0.5", "0.8", "1", "1.5", "2", "2.5", "5", "10", "+Inf"]
TTFT_LES = ["0.001", "0.005", "0.01", "0.02", "0.04", "0.06", "0.08", "0.1", "0.25", "0.5", "1", "+Inf"]


def series(rng, les, draw, intervals, per_interval):
    bounds = [float("inf") if le == "+Inf" else float(le) for le in les]
    cumulative = np.zeros(len(les))
    total_sum = 0.0
    total_count = 0
    points = [{"cumulative": cumulative.tolist(), "sum": 0.0, "count": 0}]
    for i in range(intervals):
        n = per_interval(i)
        values = draw(rng, n)
        for v in values:
            for k, b in enumerate(bounds):
                if v <= b:
                    cumulative[k:] += 1
                    break
        total_sum += float(np.sum(values))
        total_count += n
        points.append({"cumulative": cumulative.tolist(), "sum": total_sum, "count": total_count})
    return points


def estimate(les, points):
    sums = np.array([p["sum"] for p in points], dtype=np.float64)
    counts = np.array([p["count"] for p in points], dtype=np.float64)
    buckets = np.array([p["cumulative"] for p in points], dtype=np.float64)
    stats = accumulate_bucket_statistics(sums, counts, tuple(les), buckets)
    first, last = points[0], points[-1]
    deltas = {le: int(last["cumulative"][i] - first["cumulative"][i]) for i, le in enumerate(les)}
    result = compute_estimated_percentiles(
        bucket_deltas=deltas,
        bucket_stats=stats,
        total_sum=last["sum"] - first["sum"],
        total_count=int(last["count"] - first["count"]),
    )
    if result is None:
        return None
    return {f"p{p}_estimate": getattr(result, f"p{p}_estimate") for p in (1, 5, 10, 25, 50, 75, 90, 95, 99)}


def main():
    cases = []
    specs = [
        # All observations just under 0.3 s in the first bucket (the simulator's e2e latency).
        ("narrow_first_bucket", LATENCY_LES, lambda r, n: r.normal(0.277, 0.002, n), 12, lambda i: 25),
        # Spread over several buckets, a few intervals landing in one bucket only.
        ("spread", LATENCY_LES, lambda r, n: r.lognormal(-0.4, 0.5, n), 30, lambda i: 1 + (i % 4)),
        # Tight per-bucket means learned from many single-bucket intervals (F3 / blended placement).
        ("single_bucket_intervals", TTFT_LES, lambda r, n: r.normal(0.031, 0.0004, n), 40, lambda i: 3),
        # Wider spread inside buckets (variance-shaped placement).
        ("variance_shaped", TTFT_LES, lambda r, n: r.uniform(0.041, 0.079, n), 40, lambda i: 2),
        # A tail beyond the highest finite bound (+Inf back-calculation).
        ("inf_tail", LATENCY_LES, lambda r, n: np.concatenate([r.uniform(0.1, 0.4, n - 1), r.uniform(12, 30, 1)]), 20, lambda i: 10),
        # Every observation 0 (queue time): all estimates 0.
        ("all_zero", LATENCY_LES, lambda r, n: np.zeros(n), 5, lambda i: 8),
        # More than 100,000 observations: scaled down first.
        ("downsampled", TTFT_LES, lambda r, n: r.gamma(2.0, 0.02, n), 6, lambda i: 40_000),
    ]
    for seed, (name, les, draw, intervals, per_interval) in enumerate(specs):
        rng = np.random.default_rng(1000 + seed)
        points = series(rng, les, draw, intervals, per_interval)
        cases.append({"name": name, "les": les, "points": points, "aiperf": estimate(les, points)})
    OUT.write_text(json.dumps({"generator": "scripts/parity/capture_histogram_cases.py", "cases": cases}, indent=1) + "\n")
    print(f"wrote {OUT} ({len(cases)} cases)")


if __name__ == "__main__":
    import sys

    if "--stdin" in sys.argv:
        given = json.load(sys.stdin)["cases"]
        print(json.dumps({"cases": [{**c, "aiperf": estimate(c["les"], c["points"])} for c in given]}))
    else:
        main()
