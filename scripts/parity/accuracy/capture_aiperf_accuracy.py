"""Captures what AIPerf 0.13's accuracy code does with the fixture datasets, for infermeter's parity tests.

Writes tests/fixtures/accuracy/aiperf_prompts.json (every scenario's sessions as AIPerf's AccuracyDatasetLoader builds
them: messages, flat prompt, max tokens, extra body, gold, task) and tests/fixtures/accuracy/aiperf_grades.json (each
grader case of grade_cases.json as AIPerf's graders grade it). Nothing is downloaded: `load_dataset` reads the JSONL
fixtures (see sitecustomize.py) and DeepEval's BigBench-Hard prompt files are read from the fixtures too.

Needs a Python where `aiperf==0.13.0` and its accuracy extras (lighteval, deepeval, sympy, latex2sympy2_extended)
import, e.g.:

    python -m venv /tmp/acc && /tmp/acc/bin/pip install 'aiperf[accuracy]==0.13.0'
    /tmp/acc/bin/python scripts/parity/accuracy/capture_aiperf_accuracy.py
"""

import asyncio
import json
import os
import sys
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures" / "accuracy"
DATASETS = FIXTURES / "datasets"
os.environ["AIPERF_FIXTURE_DATASETS"] = str(DATASETS)
sys.path.insert(0, str(Path(__file__).resolve().parent))
import sitecustomize  # noqa: E402,F401  (routes load_dataset to the fixtures)

from aiperf.dataset.loader.accuracy_dataset_loader import AccuracyDatasetLoader  # noqa: E402
from aiperf.plugin import plugins  # noqa: E402
from aiperf.plugin.enums import PluginType  # noqa: E402

# Each scenario: a name and the accuracy options as the CLI would give them.
SCENARIOS = [
    ("gsm8k", {"benchmark": "gsm8k"}),
    ("gsm8k_system", {"benchmark": "gsm8k", "system_prompt": "Answer with a number after ####."}),
    ("mmlu", {"benchmark": "mmlu", "tasks": ["abstract_algebra", "anatomy"]}),
    ("mmlu_cot_2shot", {"benchmark": "mmlu", "tasks": ["anatomy"], "n_shots": 2, "enable_cot": True}),
    ("mmlu_0shot", {"benchmark": "mmlu", "tasks": ["abstract_algebra"], "n_shots": 0}),
    ("mmlu_pro", {"benchmark": "mmlu_pro"}),
    ("mmlu_pro_no_cot", {"benchmark": "mmlu_pro", "tasks": ["math"], "n_shots": 1, "enable_cot": False}),
    ("aime", {"benchmark": "aime", "n_shots": 2}),
    ("aime_no_cot", {"benchmark": "aime", "n_shots": 1, "enable_cot": False}),
    ("aime24", {"benchmark": "aime24"}),
    ("aime25", {"benchmark": "aime25"}),
    ("math_500", {"benchmark": "math_500"}),
    ("gpqa_diamond", {"benchmark": "gpqa_diamond"}),
    ("hellaswag", {"benchmark": "hellaswag"}),
    ("hellaswag_tasks", {"benchmark": "hellaswag", "tasks": ["SAILING", "applying sunscreen"], "n_shots": 2}),
    ("bigbench", {"benchmark": "bigbench", "tasks": ["boolean_expressions", "DATE_UNDERSTANDING"]}),
    ("bigbench_no_cot", {"benchmark": "bigbench", "tasks": ["date_understanding"], "n_shots": 1, "enable_cot": False}),
    ("lcb_codegeneration", {"benchmark": "lcb_codegeneration"}),
]


def read_bbh_fixture(package_path, filename):
    folder = package_path.rsplit(".", 1)[-1]
    text = (DATASETS / "deepeval" / "big_bench_hard" / folder / filename).read_text(encoding="utf-8")
    return text.split("\n\n")


def fake_run(options):
    accuracy = SimpleNamespace(
        benchmark=options["benchmark"],
        tasks=options.get("tasks"),
        n_shots=options.get("n_shots"),
        enable_cot=options.get("enable_cot"),
        grader=None,
        system_prompt=options.get("system_prompt"),
        verbose=False,
        enabled=True,
    )
    dataset = SimpleNamespace(random_seed=None)
    cfg = SimpleNamespace(accuracy=accuracy, get_default_dataset=lambda: dataset)
    return SimpleNamespace(cfg=cfg, random_seed=None)


async def capture_prompts():
    from deepeval.benchmarks.big_bench_hard.template import BigBenchHardTemplate

    BigBenchHardTemplate.read_file = staticmethod(read_bbh_fixture)
    out = {}
    for name, options in SCENARIOS:
        conversations = await AccuracyDatasetLoader(run=fake_run(options)).load()
        out[name] = {
            "options": options,
            "sessions": [
                {
                    "messages": turn.raw_messages,
                    "prompt": turn.texts[0].contents[0],
                    "max_tokens": turn.max_tokens,
                    "extra_body": turn.extra_body,
                    "ground_truth": conv.accuracy_ground_truth,
                    "task": conv.accuracy_task,
                }
                for conv in conversations
                for turn in conv.turns
            ],
        }
    return out


async def capture_grades():
    cases = json.loads((FIXTURES / "grade_cases.json").read_text(encoding="utf-8"))
    graders = {}
    out = []
    for case in cases:
        name = case["grader"]
        if name not in graders:
            cls = plugins.get_class(PluginType.ACCURACY_GRADER, name)
            graders[name] = cls(run=SimpleNamespace(cfg=SimpleNamespace(accuracy=None)))
        result = await graders[name].grade(case["response"], case["gold"])
        out.append({**case, "aiperf": result.model_dump()})
    return out


def main():
    prompts = asyncio.run(capture_prompts())
    (FIXTURES / "aiperf_prompts.json").write_text(json.dumps(prompts, indent=2, ensure_ascii=False) + "\n")
    grades = asyncio.run(capture_grades())
    (FIXTURES / "aiperf_grades.json").write_text(json.dumps(grades, indent=2, ensure_ascii=False) + "\n")
    print(f"{sum(len(s['sessions']) for s in prompts.values())} sessions, {len(grades)} grades", file=sys.stderr)


if __name__ == "__main__":
    main()
