/**
 * The Python program that runs one generated LiveCodeBench solution against its test cases inside the sandbox
 * (`code_sandbox.ts`), with lighteval's rules (`lcb_codegen_metric`, which AIPerf 0.13's `code_execution` grader
 * runs): the common imports are prepended; a program without `fn_name` is wrapped in a function (an
 * `if __name__ == '__main__':` block at its end inlined) and called per test with the input as stdin, its printed
 * output compared line by line after stripping (numeric lines also as decimals); with `fn_name`, the method (of
 * `Solution()` when the code defines that class) is called with each JSON-decoded input line as an argument and its
 * value compared with the JSON-decoded output (tuples as lists). Each test has its own alarm (whole seconds); the first
 * failure ends the run. Results per test: True, -2 wrong answer, -3 time limit, -4 runtime or compile error.
 *
 * It reads `{"code", "inputs", "outputs", "fn_name", "timeout", "nonce"}` as JSON on stdin and prints the results as
 * one JSON line after the nonce, last.
 */
export const LCB_HARNESS = String.raw`
import ast, faulthandler, io, json, signal, sys, time
from decimal import Decimal
from io import StringIO
from unittest.mock import mock_open, patch

payload = json.loads(sys.stdin.read())
REAL_STDOUT = sys.stdout
IMPORTS = ("from string import *\nfrom re import *\nfrom datetime import *\nfrom collections import *\n"
    "from heapq import *\nfrom bisect import *\nfrom copy import *\nfrom math import *\nfrom random import *\n"
    "from statistics import *\nfrom itertools import *\nfrom functools import *\nfrom operator import *\n"
    "from io import *\nfrom sys import *\nfrom json import *\nfrom builtins import *\nfrom typing import *\n"
    "import string\nimport re\nimport datetime\nimport collections\nimport heapq\nimport bisect\nimport copy\n"
    "import math\nimport random\nimport statistics\nimport itertools\nimport functools\nimport operator\n"
    "import io\nimport sys\nimport json\nsys.setrecursionlimit(50000)\n")

class Timeout(Exception):
    pass

def on_alarm(signum, frame):
    raise Timeout()

signal.signal(signal.SIGALRM, on_alarm)
try:
    sys.set_int_max_str_digits(50000)
except AttributeError:
    pass

def inline_main(code):
    try:
        tree = ast.parse(code)
        last = tree.body[-1]
        if isinstance(last, ast.If) and ast.unparse(last.test).strip() == "__name__ == '__main__'":
            code = ast.unparse(tree.body[:-1]) + "\n" + ast.unparse(last.body)
    except Exception:
        pass
    return code

def as_function(code):
    try:
        tree = ast.parse(code)
        imports = [s for s in tree.body if isinstance(s, (ast.Import, ast.ImportFrom))]
        rest = [s for s in tree.body if not isinstance(s, (ast.Import, ast.ImportFrom))]
        fn = ast.FunctionDef(name="wrapped_function", args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[],
            kw_defaults=[], defaults=[]), body=rest, decorator_list=[], lineno=-1)
        return IMPORTS + "\n" + ast.unparse(imports) + "\n" + ast.unparse(fn)
    except Exception:
        return code

def load(code, timeout):
    signal.alarm(timeout)
    try:
        module = type(sys)("tmp_sol")
        exec(code, module.__dict__)
        return module.Solution() if "class Solution" in code else module
    finally:
        signal.alarm(0)

def stripped_lines(text):
    return [line.strip() for line in text.strip().split("\n")]

def decimals(line):
    try:
        return True, [Decimal(x) for x in line.split()]
    except Exception:
        return False, []

def run_stdin(code, inputs, outputs, timeout):
    sol = load(as_function(inline_main(code)), timeout)
    method = getattr(sol, "wrapped_function", None)
    if method is None:
        return [-4]
    results = []
    for given, expected in zip(inputs, outputs):
        if isinstance(given, list):
            given = "\n".join(given)
        lines = iter(given.split("\n"))
        captured = StringIO()
        captured.close = lambda *a: None
        signal.alarm(timeout)
        sys.stdout = captured
        try:
            with patch("builtins.open", mock_open(read_data=given)), patch("sys.stdin", StringIO(given)), \
                    patch("sys.stdin.readline", lambda *a: next(lines)), \
                    patch("sys.stdin.readlines", lambda *a: given.split("\n")), \
                    patch("sys.stdin.read", lambda *a: given):
                try:
                    method()
                except SystemExit:
                    pass
            signal.alarm(0)
        except BaseException as e:
            signal.alarm(0)
            sys.stdout = REAL_STDOUT
            results.append(-3 if isinstance(e, Timeout) else -4)
            return results
        finally:
            signal.alarm(0)
            sys.stdout = REAL_STDOUT
        got = stripped_lines(captured.getvalue())
        want = stripped_lines(expected)
        if len(got) != len(want):
            results.append(-2)
            return results
        for g, w in zip(got, want):
            if g == w:
                continue
            ok_g, dg = decimals(g)
            ok_w, dw = decimals(w)
            if not (ok_g and ok_w and dg == dw):
                results.append(-2)
                return results
        results.append(True)
    return results

def run_call(code, inputs, outputs, fn_name, timeout):
    sol = load(IMPORTS + "\n\n" + code, timeout)
    method = getattr(sol, fn_name, None)
    if method is None:
        return [-4]
    args = [[json.loads(line) for line in given.split("\n")] for given in inputs]
    wants = [json.loads(expected) for expected in outputs]
    results = []
    for given, expected in zip(args, wants):
        signal.alarm(timeout)
        faulthandler.enable()
        try:
            got = method(*given)
            signal.alarm(0)
            if isinstance(got, tuple):
                got = list(got)
            results.append(got == expected)
            if not results[-1]:
                return results
        except BaseException as e:
            signal.alarm(0)
            results.append(-3 if isinstance(e, Timeout) else -4)
            return results
        finally:
            signal.alarm(0)
            faulthandler.disable()
    return results

try:
    if payload.get("fn_name") is None:
        outcome = run_stdin(payload["code"], payload["inputs"], payload["outputs"], payload["timeout"])
    else:
        outcome = run_call(payload["code"], payload["inputs"], payload["outputs"], payload["fn_name"], payload["timeout"])
except BaseException:
    outcome = [-4]
sys.stdout = REAL_STDOUT
REAL_STDOUT.write("\n" + payload["nonce"] + json.dumps([r if r is True or r is False else int(r) for r in outcome]) + "\n")
REAL_STDOUT.flush()
`;
