"""AIPerf's `profile` options, read from its own definitions (cyclopts + pydantic), as JSON on stdout.

Run with AIPerf installed (no network needed once installed):

    python3 -m venv /tmp/aiperf-venv && /tmp/aiperf-venv/bin/pip install aiperf==0.13.0
    /tmp/aiperf-venv/bin/python scripts/aiperf_parity/extract_aiperf_options.py \
        > tests/fixtures/aiperf_0.13_profile_options.json

Each option: its spellings (long flags, short flags, `--no-` forms cyclopts adds), its `--help` group, whether it
takes a value (`flag` for booleans), its choices when AIPerf restricts them, its default and its help text. The
file is data for `tests/config/aiperf_option_walk_test.ts` and `scripts/aiperf_parity/write_parity_doc.ts`; it is
regenerated, never edited by hand.
"""

from __future__ import annotations

import enum
import json
import sys
import typing
from pathlib import Path

import aiperf
from aiperf.cli_commands.profile import app


def unwrap(hint):
    """The value type behind Optional[...] / Annotated[...]."""
    origin = typing.get_origin(hint)
    if origin is typing.Annotated:
        return unwrap(typing.get_args(hint)[0])
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        return unwrap(args[0]) if len(args) == 1 else hint
    return hint


def kind_of(hint) -> str:
    hint = unwrap(hint)
    if hint is bool:
        return "flag"
    origin = typing.get_origin(hint)
    if origin in (list, tuple, set) or hint in (list, tuple, set):
        return "list"
    return "value"


def choices_of(hint) -> list | None:
    hint = unwrap(hint)
    origin = typing.get_origin(hint)
    if origin in (list, tuple, set):
        args = typing.get_args(hint)
        return choices_of(args[0]) if args else None
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return [str(m.value) for m in hint]
    if origin is typing.Literal:
        return [str(a) for a in typing.get_args(hint)]
    if origin is typing.Union:
        found = [c for a in typing.get_args(hint) for c in (choices_of(a) or [])]
        return found or None
    return None


def jsonable(value):
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


def main() -> None:
    options = []
    for argument in app.assemble_argument_collection():
        names = list(argument.names)
        if names == ["--cli-config"]:
            continue
        parameter = argument.parameter
        field = argument.field_info
        default = getattr(field, "default", None) if field is not None else None
        if default is not None and repr(default) == "PydanticUndefined":
            default = None
        help_text = (parameter.help or (field.description if field is not None else "") or "").strip()
        options.append(
            {
                "flags": [n for n in names if n.startswith("--") and n not in (parameter.negative or ())],
                "short": [n for n in names if not n.startswith("--")],
                "negative": list(parameter.negative or []),
                "group": parameter.group[0].name if parameter.group else "",
                "kind": kind_of(argument.hint),
                "choices": choices_of(argument.hint),
                "default": jsonable(default),
                "help": " ".join(help_text.split()),
            }
        )
    json.dump(
        {"producer": "aiperf", "version": aiperf.__version__ if hasattr(aiperf, "__version__") else "0.13.0",
         "command": "profile", "options": options},
        sys.stdout,
        indent=1,
        ensure_ascii=False,
    )
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
