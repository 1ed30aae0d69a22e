"""Writes the small public-dataset fixtures of tests/fixtures/hf_hub in the Hugging Face hub cache layout
(datasets--OWNER--NAME/snapshots/<revision>/<path>), as real Parquet/JSON Lines files the way the Hub stores them:
Parquet written by pyarrow with snappy compression, images and audio as {bytes, path} structs.

Needs pyarrow, numpy, soundfile and Pillow (a throwaway venv is enough):
    python3 -m venv /tmp/fx && /tmp/fx/bin/pip install pyarrow numpy soundfile pillow
    /tmp/fx/bin/python scripts/gen/hf_hub_fixtures.py
"""

import base64
import io
import json
import pathlib
import shutil

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import soundfile as sf
from PIL import Image

HUB = pathlib.Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "hf_hub"
REV = "0123456789abcdef"

IMAGE = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
AUDIO = IMAGE


def repo(name: str) -> pathlib.Path:
    root = HUB / f"datasets--{name.replace('/', '--')}"
    if root.exists():
        shutil.rmtree(root)
    snap = root / "snapshots" / REV
    snap.mkdir(parents=True)
    (root / "refs").mkdir()
    (root / "refs" / "main").write_text(REV)
    return snap


def parquet(path: pathlib.Path, table: pa.Table, row_group_size: int | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, compression="snappy", row_group_size=row_group_size)


def jsonl(path: pathlib.Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def readme(snap: pathlib.Path, configs: str) -> None:
    (snap / "README.md").write_text(f"---\nconfigs:\n{configs}---\n# fixture\n")


def png(color: tuple[int, int, int]) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (4, 3), color).save(buf, format="PNG")
    return buf.getvalue()


def jpeg(color: tuple[int, int, int]) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (4, 3), color).save(buf, format="JPEG", quality=85)
    return buf.getvalue()


def tone(seconds: float, rate: int, fmt: str, amplitude: float = 0.25) -> bytes:
    t = np.arange(int(seconds * rate)) / rate
    samples = (amplitude * np.sin(2 * np.pi * 440 * t) * 32767).astype(np.int16)
    buf = io.BytesIO()
    sf.write(buf, samples, rate, format=fmt, subtype="PCM_16")
    return buf.getvalue()


def problems(name: str, column: str, layout: str) -> None:
    snap = repo(name)
    rows = {column: ["What is 2 + 3?", "   ", "Find x when 3x = 12.", None, "How many primes are below 20?"],
            "solution": ["5", "", "4", "", "8"]}
    if layout == "jsonl":
        jsonl(snap / "train.jsonl", [dict(zip(rows, v)) for v in zip(*rows.values())])
    else:
        # Two row groups, so readers are seen to stream them in order.
        parquet(snap / "data" / "train-00000-of-00001.parquet", pa.table(rows), row_group_size=2)


def main() -> None:
    HUB.mkdir(parents=True, exist_ok=True)
    problems("AI-MO/NuminaMath-TIR", "problem", "parquet")
    problems("AI-MO/aimo-validation-aime", "problem", "jsonl")
    problems("AI-MO/NuminaMath-CoT", "problem", "parquet")
    problems("AI-MO/NuminaMath-1.5", "problem", "parquet")

    # Subset directories named by the dataset card's configs, as openai/gsm8k and google-research-datasets/mbpp.
    snap = repo("openai/gsm8k")
    readme(snap, "- config_name: main\n  data_files:\n  - split: train\n    path: main/train-*\n"
                 "  - split: test\n    path: main/test-*\n- config_name: socratic\n  data_files:\n"
                 "  - split: test\n    path: socratic/test-*\n")
    parquet(snap / "main" / "test-00000-of-00001.parquet",
            pa.table({"question": ["Tom has 3 apples and buys 2 more. How many?", "A train goes 60 km/h for 2 h."],
                      "answer": ["#### 5", "#### 120"]}))
    parquet(snap / "main" / "train-00000-of-00001.parquet", pa.table({"question": ["train row"], "answer": ["x"]}))
    parquet(snap / "socratic" / "test-00000-of-00001.parquet", pa.table({"question": ["socratic row"], "answer": ["x"]}))

    snap = repo("HuggingFaceH4/MATH-500")
    jsonl(snap / "test.jsonl", [{"problem": "Compute $1+1$.", "answer": "2"}, {"problem": "Solve $x^2=4$.", "answer": "2"}])

    snap = repo("openai/openai_humaneval")
    readme(snap, "- config_name: openai_humaneval\n  data_files:\n  - split: test\n    path: openai_humaneval/test-*\n")
    parquet(snap / "openai_humaneval" / "test-00000-of-00001.parquet",
            pa.table({"task_id": ["HumanEval/0"], "prompt": ["def add(a, b):\n    \"\"\"Add two numbers.\"\"\"\n"]}))

    snap = repo("google-research-datasets/mbpp")
    readme(snap, "- config_name: full\n  data_files:\n  - split: test\n    path: full/test-*\n"
                 "- config_name: sanitized\n  data_files:\n  - split: test\n    path: sanitized/test-*\n")
    parquet(snap / "full" / "test-00000-of-00001.parquet",
            pa.table({"task_id": [11, 12], "text": ["Write a function to reverse a list.", "Write a function to sum a list."]}))
    parquet(snap / "sanitized" / "test-00000-of-00001.parquet", pa.table({"task_id": [1], "prompt": ["sanitized"]}))

    snap = repo("HuggingFaceH4/mt_bench_prompts")
    parquet(snap / "data" / "train-00000-of-00001.parquet",
            pa.table({"prompt": [["Write a travel blog post about Hawaii.", "Rewrite it starting every sentence with A."],
                                 ["", "  "], ["Explain recursion to a child."]],
                      "category": ["writing", "empty", "stem"]}))

    snap = repo("likaixin/InstructCoder")
    jsonl(snap / "train.json", [{"instruction": "Add type hints to this function.", "input": "def f(x): return x"},
                                 {"instruction": "Rename variable a to count.", "input": "a = 1"}])

    for name, size in (("vdaita/edit_5k_char", 5), ("vdaita/edit_10k_char", 10)):
        snap = repo(name)
        parquet(snap / "data" / "train-00000-of-00001.parquet",
                pa.table({"code": [f"def f():\n    return {size}\n", "x = 1\n"],
                          "change_request": ["Return twice the value.", "Rename x to y."]}))

    snap = repo("Lin-Chen/MMStar")
    readme(snap, "- config_name: val\n  data_files:\n  - split: val\n    path: mmstar.parquet\n")
    parquet(snap / "mmstar.parquet",
            pa.table({"index": [0, 1, 2],
                      "question": ["Which color is the square?", "What shape is shown?", ""],
                      "image": pa.array([{"bytes": png((255, 0, 0)), "path": None},
                                         {"bytes": jpeg((0, 0, 255)), "path": "b.jpg"},
                                         {"bytes": png((0, 255, 0)), "path": None}], IMAGE)}))

    snap = repo("yale-nlp/MMVU")
    parquet(snap / "data" / "validation-00000-of-00001.parquet",
            pa.table({"question": ["What happens to the ball?", "Which organ is shown?", "No video here?"],
                      "choices": pa.array([{"A": "It falls", "B": "It rises", "C": "", "D": "It stops", "E": ""},
                                           {"A": "Heart", "B": "Lung", "C": "Liver", "D": "", "E": ""},
                                           {"A": "x", "B": "", "C": "", "D": "", "E": ""}]),
                      "video": ["https://huggingface.co/datasets/yale-nlp/MMVU/resolve/main/videos/a.mp4",
                                "videos/b.mp4", ""]}))

    snap = repo("lmarena-ai/VisionArena-Chat")
    message = pa.struct([("role", pa.string()), ("content", pa.string())])
    parquet(snap / "data" / "train-00000-of-00001.parquet",
            pa.table({"conversation_id": ["c1", "c2"],
                      "conversation": pa.array([[[{"role": "user", "content": "Describe this picture."}],
                                                 [{"role": "assistant", "content": "A red square."}]],
                                                [[{"role": "assistant", "content": "Hello"}],
                                                 [{"role": "user", "content": "What is in the image? <image>"}]]],
                                               pa.list_(pa.list_(message))),
                      "images": pa.array([[{"bytes": png((255, 0, 0)), "path": "a.png"}], []], pa.list_(IMAGE))}))

    snap = repo("lmms-lab/LLaVA-OneVision-Data")
    readme(snap, "- config_name: sharegpt4o\n  data_files:\n  - split: train\n    path: sharegpt4o/train-*\n"
                 "- config_name: other\n  data_files:\n  - split: train\n    path: other/train-*\n")
    turn = pa.struct([("from", pa.string()), ("value", pa.string())])
    parquet(snap / "sharegpt4o" / "train-00000-of-00001.parquet",
            pa.table({"id": ["l1", "l2"],
                      "conversations": pa.array([[{"from": "human", "value": "<image>\nWhat is drawn here?"},
                                                  {"from": "gpt", "value": "A blue square."}],
                                                 [{"from": "gpt", "value": "only an answer"}]], pa.list_(turn)),
                      "image": pa.array([{"bytes": jpeg((0, 0, 255)), "path": None}, None], IMAGE)}))
    parquet(snap / "other" / "train-00000-of-00001.parquet",
            pa.table({"id": ["o1"], "conversations": pa.array([[{"from": "human", "value": "other"}]], pa.list_(turn)),
                      "image": pa.array([None], IMAGE)}))

    # ASR: a FLAC clip, a WAV clip, a 31 s clip (over AIPerf's 30 s limit) and a row without audio bytes; laid out as
    # the Hub's Parquet conversion (<subset>/<split>/NNNN.parquet) for some, dataset-card configs for others.
    def clips() -> pa.Array:
        return pa.array([{"bytes": tone(0.5, 16000, "FLAC"), "path": "a.flac"},
                         {"bytes": tone(0.25, 8000, "WAV"), "path": "b.wav"},
                         {"bytes": tone(31, 8000, "FLAC", amplitude=0.0), "path": "long.flac"},
                         {"bytes": None, "path": "missing.flac"}], AUDIO)

    for name, subset in (("openslr/librispeech_asr", "clean"), ("facebook/voxpopuli", "en"),
                         ("speechcolab/gigaspeech", "xs"), ("edinburghcstr/ami", "ihm"),
                         ("kensho/spgispeech", "test")):
        snap = repo(name)
        parquet(snap / subset / "test" / "0000.parquet",
                pa.table({"id": ["a", "b", "long", "missing"], "audio": clips(),
                          "text": ["A TONE", "A SHORT TONE", "SILENCE", "NOTHING"]}))
        parquet(snap / subset / "train" / "0000.parquet", pa.table({"id": ["t"], "audio": pa.array([None], AUDIO)}))

    # What AIPerf sends for the two readable clips: soundfile's read then WAV write, base64 (the readers must match it).
    expected = {}
    for clip in clips().to_pylist()[:2]:
        array, rate = sf.read(io.BytesIO(clip["bytes"]))
        out = io.BytesIO()
        sf.write(out, array, rate, format="WAV")
        expected[clip["path"]] = base64.b64encode(out.getvalue()).decode()
    (HUB.parent / "public_datasets").mkdir(parents=True, exist_ok=True)
    (HUB.parent / "public_datasets" / "asr_expected_wav.json").write_text(json.dumps(expected, indent=1) + "\n")

    spec = HUB.parent / "public_datasets" / "spec_bench.jsonl"
    spec.parent.mkdir(parents=True, exist_ok=True)
    jsonl(spec, [{"question_id": 81, "category": "writing", "turns": ["Compose a short poem about tea.", "Now make it rhyme."]},
                 {"question_id": 82, "category": "empty", "turns": []},
                 {"question_id": 83, "category": "qa", "turns": ["  What is the boiling point of water?  "]}])


if __name__ == "__main__":
    main()
