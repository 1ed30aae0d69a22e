/**
 * The sandbox generated code runs in: on a machine where it can be made, code has no network, cannot write outside
 * its scratch directory and is killed at the wall-clock limit; elsewhere the reason is said. LiveCodeBench's harness
 * grades stdin and call-based programs with lighteval's result codes.
 */
import assert from "node:assert/strict";
import { runSandboxed, sandboxProblem } from "../../../src/dataset/accuracy/graders/code_sandbox.ts";
import { runLcbTests } from "../../../src/dataset/accuracy/graders/code_execution.ts";

const problem = await sandboxProblem();

Deno.test("the sandbox has no network, a read-only file system but its scratch, and a wall-clock limit", async () => {
  if (problem !== undefined) {
    assert.match(problem, /unshare|python3|network|read-only/);
    return;
  }
  const probe = await runSandboxed(
    [
      "-c",
      `import os, socket
print(",".join(n for _, n in socket.if_nameindex()))
for p in [${JSON.stringify(Deno.cwd())}, "/tmp"]:
    try:
        open(os.path.join(p, "probe"), "w").write("x"); print("wrote", p)
    except OSError: print("blocked", p)
try:
    socket.create_connection(("127.0.0.1", 9), timeout=1); print("connected")
except OSError: print("no network")
print(sorted(k for k in os.environ if k not in ("PATH", "LANG", "PYTHONDONTWRITEBYTECODE", "PWD", "OLDPWD", "SHLVL", "_")))`,
    ],
    "",
    { wallMs: 20_000 },
  );
  assert.equal(probe.code, 0, probe.stderr);
  assert.deepEqual(probe.stdout.trim().split("\n"), [
    "lo",
    `blocked ${Deno.cwd()}`,
    "wrote /tmp",
    "no network",
    "[]",
  ]);
  const started = performance.now();
  const slow = await runSandboxed(["-c", "while True: pass"], "", { wallMs: 1500 });
  assert.ok(slow.timedOut);
  assert.ok(performance.now() - started < 10_000);
});

Deno.test("the LiveCodeBench harness passes, fails and times out programs as lighteval does", async () => {
  if (problem !== undefined) return; // the grader is refused before any run (tests/e2e/accuracy_test.ts)
  const stdin = { inputs: ["1 2\n", "5 5\n"], outputs: ["3\n", "10\n"], fnName: null };
  assert.deepEqual(await runLcbTests("a, b = map(int, input().split())\nprint(a + b)", stdin), [true, true]);
  // Wrong output on the second test: -2, and the run stops there.
  assert.deepEqual(await runLcbTests("a, b = map(int, input().split())\nprint(3)", stdin), [true, -2]);
  // Numeric lines also compare as decimals.
  assert.deepEqual(
    await runLcbTests("print('3.0')", { inputs: [""], outputs: ["3.00"], fnName: null }),
    [true],
  );
  assert.deepEqual(await runLcbTests("raise ValueError()", stdin), [-4]);
  assert.deepEqual(await runLcbTests("def f(:", stdin), [-4]);
  const call = { inputs: ["3", "[1, 2]\n4"], outputs: ["6", "[1, 2, 4]"], fnName: "f" };
  const code = "class Solution:\n    def f(self, *a):\n        return a[0] * 2 if len(a) == 1 else (*a[0], a[1])";
  assert.deepEqual(await runLcbTests(code, call), [true, true]);
  assert.deepEqual(await runLcbTests("def g():\n    pass", call), [-4]);
  assert.deepEqual(
    await runLcbTests("import time\nwhile True: time.sleep(1)", { inputs: [""], outputs: [""], fnName: null }),
    [-3],
  );
});
