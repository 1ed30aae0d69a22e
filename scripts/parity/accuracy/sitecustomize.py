"""Makes AIPerf's accuracy benchmarks read the local fixture copies instead of the Hugging Face Hub.

Put this directory first on PYTHONPATH and set AIPERF_FIXTURE_DATASETS to a directory laid out as
<owner>/<name>/[<subset>/]<split>.jsonl (tests/fixtures/accuracy/datasets). Every `load_dataset(name, subset,
split=...)` call of AIPerf's benchmarks then returns those rows (a DatasetDict when no split is asked); nothing is
downloaded. LiveCodeBench's release tags map to its files as its loading script does (v4_v5 -> test4 + test5).
"""
import json
import os

_ROOT = os.environ.get("AIPERF_FIXTURE_DATASETS")

# livecodebench/code_generation_lite release tags -> the files its loading script reads.
def _lcb_files(tag):
    stem = lambda n: "test" if n == 1 else f"test{n}"
    if tag.startswith("release_v"):
        return [stem(n) for n in range(1, int(tag[9:]) + 1)]
    if "_" in tag:
        a, b = (int(p[1:]) for p in tag.split("_"))
        return [stem(n) for n in range(a, b + 1)]
    return [stem(int(tag[1:]))]


def _rows(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _fixture_load_dataset(name, subset=None, split=None, **_kwargs):
    from datasets import Dataset, DatasetDict

    base = os.path.join(_ROOT, name)
    if name == "livecodebench/code_generation_lite":
        rows = [r for stem in _lcb_files(subset or "v4_v5") if os.path.exists(os.path.join(base, stem + ".jsonl"))
                for r in _rows(os.path.join(base, stem + ".jsonl"))]
        ds = Dataset.from_list(rows)
        return ds if split is not None else DatasetDict({"test": ds})
    folder = os.path.join(base, subset) if subset else base
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"no fixture for {name} subset {subset}: {folder}")
    splits = {f[:-6]: Dataset.from_list(_rows(os.path.join(folder, f)))
              for f in sorted(os.listdir(folder)) if f.endswith(".jsonl")}
    return splits[split] if split is not None else DatasetDict(splits)


if _ROOT:
    import aiperf.accuracy.benchmarks._datasets_compat as _compat

    _compat.load_dataset = _fixture_load_dataset
