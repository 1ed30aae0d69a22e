"""Writes the Baseten trace files the tests and examples read (Parquet and Arrow IPC, as Baseten exports them).

Run with a Python that has pyarrow (AIPerf's environment has it):
    python scripts/gen/baseten_trace_fixtures.py
It writes datasets/examples/baseten_trace.parquet, tests/fixtures/baseten/*.parquet and *.arrow; rerun it after
changing the rows here, never edit the files by hand.
"""

from pathlib import Path

import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[2]
T0 = 1_746_000_000_000  # unix ms of the first request

PROMPTS = [
    "Write a haiku about load balancers.",
    "Continue the haiku with a second stanza about retries.",
    "Explain KV-cache reuse in one paragraph.",
    "Translate 'good morning' into French, Spanish and German.",
    "List three causes of tail latency in LLM serving.",
    "Now rank those three causes by how often they occur.",
]

# (offset ms, prompt, input tokens, output tokens, hashes, session, poor man's session, e2e ms)
ROWS = [
    (0, 0, 9, 20, [11, 12], "s-a", 1, 400),
    (1_000, 1, 21, 24, [11, 12, 13], "s-a", 1, 500),
    (250, 2, 11, 0, [21], "s-b", 2, 100),
    (60_000, 3, 14, 16, [31], None, 3, 300),
    (61_500, 4, 13, 30, [41], "s-c", 4, 900),
    (64_500, 5, 26, 12, [41, 42], "s-c", 4, 350),
]


def table(with_sessions: bool = True) -> pa.Table:
    columns = {
        "timestamp_start_unix_ms": pa.array([T0 + r[0] for r in ROWS], pa.int64()),
        "prompt": pa.array([PROMPTS[r[1]] for r in ROWS], pa.string()),
        "input_tokens": pa.array([r[2] for r in ROWS], pa.int64()),
        "output_tokens": pa.array([r[3] for r in ROWS], pa.int64()),
        "total_hashes": pa.array([r[4] for r in ROWS], pa.list_(pa.int64())),
        "block_size": pa.array([64] * len(ROWS), pa.int64()),
        "duration_e2e_ms": pa.array([r[7] for r in ROWS], pa.int64()),
    }
    if with_sessions:
        columns["provided_session_id"] = pa.array([r[5] for r in ROWS], pa.string())
        columns["poor_man_session_id"] = pa.array([r[6] for r in ROWS], pa.int64())
    return pa.table(columns)


def main() -> None:
    fixtures = ROOT / "tests" / "fixtures" / "baseten"
    fixtures.mkdir(parents=True, exist_ok=True)
    pq.write_table(table(), ROOT / "datasets" / "examples" / "baseten_trace.parquet", row_group_size=4)
    pq.write_table(table(), fixtures / "trace.parquet", row_group_size=4)
    pq.write_table(table(with_sessions=False), fixtures / "no_sessions.parquet")
    pq.write_table(table().drop_columns(["prompt"]), fixtures / "no_prompt.parquet")
    bad = table().set_column(3, "output_tokens", pa.array([20, 24, -1, 16, 30, 12], pa.int64()))
    pq.write_table(bad, fixtures / "negative_output.parquet")
    with ipc.new_file(fixtures / "trace.arrow", table().schema) as writer:
        writer.write_table(table())


if __name__ == "__main__":
    main()
