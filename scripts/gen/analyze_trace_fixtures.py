"""Writes a Mooncake trace with shared prefixes and what AIPerf 0.13's `analyze-trace` reports for it.

Run with AIPerf's Python (pip install aiperf==0.13.0):
    python scripts/gen/analyze_trace_fixtures.py
It writes tests/fixtures/analyze_trace/trace.jsonl, trace.aiperf.json (AIPerf's --output-file for --block-size 64)
and trace.aiperf.txt (its console report); rerun it after changing the trace here, never edit the files by hand.
"""

import json
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fixtures" / "analyze_trace"


def trace_lines() -> list[dict]:
    rng = random.Random(7)
    lines = []
    next_id = 100
    prefixes = [[1, 2, 3], [1, 2, 4], [10, 11]]
    for i in range(40):
        line: dict = {"timestamp": i * 250}
        if i % 9 == 4:
            line["text_input"] = f"literal prompt {i}"
        else:
            base = list(prefixes[rng.randrange(len(prefixes))])
            tail = [next_id + k for k in range(rng.randrange(0, 4))]
            next_id += len(tail)
            if rng.random() < 0.3 and lines:
                # Resend an earlier line's blocks: a full-context hit.
                earlier = [ln for ln in lines if "hash_ids" in ln]
                base, tail = list(rng.choice(earlier)["hash_ids"]), []
            ids = base + tail
            line["hash_ids"] = ids
            line["input_length"] = 64 * (len(ids) - 1) + rng.randrange(1, 65)
        if i % 7 != 3:
            line["output_length"] = rng.randrange(1, 400)
        lines.append(line)
    return lines


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    trace = OUT / "trace.jsonl"
    trace.write_text("".join(json.dumps(line) + "\n" for line in trace_lines()))
    aiperf = Path(sys.executable).with_name("aiperf")
    report = subprocess.run(
        [str(aiperf), "analyze-trace", str(trace), "--block-size", "64", "--output-file", str(OUT / "trace.aiperf.json")],
        check=True,
        capture_output=True,
        text=True,
    )
    (OUT / "trace.aiperf.txt").write_text(report.stdout)


if __name__ == "__main__":
    main()
