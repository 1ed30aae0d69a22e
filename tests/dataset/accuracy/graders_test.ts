/** The graders' building blocks against hand-worked answers (the whole graders are checked against AIPerf's own
 * verdicts in `aiperf_accuracy_parity_test.ts`). */
import assert from "node:assert/strict";
import { extractChoiceLetter } from "../../../src/dataset/accuracy/graders/choice_letter.ts";
import { gsm8kNormalize, gsm8kPrediction } from "../../../src/dataset/accuracy/graders/gsm8k_grader.ts";
import { stripMathAnswer } from "../../../src/dataset/accuracy/graders/math_strip.ts";
import { lastBoxed, mathAnswer, mathEqual } from "../../../src/dataset/accuracy/graders/math_grader.ts";
import { parseMath, sameValue } from "../../../src/dataset/accuracy/graders/math_value.ts";
import { boxedContent, normalizeLatex } from "../../../src/dataset/accuracy/graders/latex_normalize.ts";
import { extractTargets, sameExtraction } from "../../../src/dataset/accuracy/graders/extractive_match.ts";
import { extractCode, lcbTests, unpickleString } from "../../../src/dataset/accuracy/graders/lcb_tests.ts";
import { pyFloat } from "../../../src/dataset/accuracy/graders/py_float.ts";
import { pyRepr } from "../../../src/dataset/accuracy/graders/accuracy_grader.ts";

Deno.test("choice letters come from 'answer is (X)', then 'Answer: X', then the last lone letter", () => {
  assert.deepEqual(extractChoiceLetter("A or B? The answer is (C). Not D."), { letter: "C", tier: 1 });
  assert.deepEqual(extractChoiceLetter("answer: B then Answer: D"), { letter: "D", tier: 2 });
  assert.deepEqual(extractChoiceLetter("I pick B, not Apple"), { letter: "B", tier: 3 });
  // A letter inside a word of any script is not alone (Python's \b).
  assert.deepEqual(extractChoiceLetter("éA Ъb", "AB"), { letter: "", tier: 0 });
  assert.deepEqual(extractChoiceLetter("nothing"), { letter: "", tier: 0 });
});

Deno.test("GSM8K reads the number after ####, else the last number, without commas", () => {
  assert.equal(gsm8kNormalize("so 3+4=7\n#### 1,207"), "1207");
  assert.equal(gsm8kNormalize("no marker 12"), "[invalid]");
  assert.deepEqual(gsm8kPrediction("It costs $1,200.50 in total"), { answer: "1200.50", fallback: true });
  assert.deepEqual(gsm8kPrediction("#### 42"), { answer: "42", fallback: false });
  assert.equal(pyFloat("12."), 12);
  assert.equal(pyFloat("1_000"), 1000);
  assert.equal(pyFloat(""), undefined);
  assert.equal(pyFloat("1.2.3"), undefined);
});

Deno.test("the math recipe normalizes units, fractions and prefixes and compares by value", () => {
  assert.equal(stripMathAnswer("\\dfrac{1}{2}"), "\\frac{1}{2}");
  assert.equal(stripMathAnswer("x = 12 \\text{ cm}"), "12");
  assert.equal(stripMathAnswer("3/4"), "\\frac{3}{4}");
  assert.equal(stripMathAnswer("\\frac12"), "\\frac{1}{2}");
  assert.equal(stripMathAnswer("50\\%"), "50");
  assert.equal(stripMathAnswer("5.00"), "5");
  assert.equal(lastBoxed("\\boxed{1} then \\boxed{\\frac{2}{3}}"), "\\frac{2}{3}");
  assert.deepEqual(mathAnswer("so the final answer is 17."), { answer: "17", unparsed: true });
  assert.deepEqual(mathAnswer("\\boxed{:5.}"), { answer: "5", unparsed: false });
  assert.ok(mathEqual("\\frac{1}{2}", "0.5"));
  assert.ok(mathEqual("50", "0.5")); // the gold read as a percentage
  assert.ok(mathEqual("3,1,2", "1,2,3"));
  assert.ok(mathEqual("\\sqrt{8}", "2\\sqrt{2}"));
  assert.ok(!mathEqual("7", "8"));
});

Deno.test("math values: exact fractions, decimals to the precision, expressions at fixed points", () => {
  const v = (s: string) => parseMath(s)!;
  assert.ok(sameValue(v("\\frac{5}{6}"), v("10/12")));
  assert.ok(!sameValue(v("\\frac{1}{3}"), v("0.3333"), { precision: 5 }));
  assert.ok(sameValue(v("\\frac{1}{3}"), v("0.33333"), { precision: 5 }));
  assert.ok(sameValue(v("(x+1)^2"), v("x^2+2x+1")));
  assert.ok(!sameValue(v("(x+1)^2"), v("x^2+1")));
  assert.ok(!sameValue(v("x"), v("y")));
  assert.equal(parseMath("\\{1,2\\}"), undefined);
  assert.equal(parseMath("1 +"), undefined);
  assert.equal(parseMath("\\unknowncommand{2}"), undefined);
});

Deno.test("LaTeX is normalized as latex2sympy2_extended 1.0.6 does (values printed by it)", () => {
  const all = { boxed: "all" } as const;
  assert.equal(normalizeLatex("\\boxed{\\dfrac{5}{6}}", all), "\\frac{5}{6}");
  assert.equal(normalizeLatex("x = y = 5", all), "5");
  assert.equal(normalizeLatex("\\left( 3, \\frac{\\pi}{2} \\right)", all), "( 3, \\frac{\\pi}{2} )");
  assert.equal(normalizeLatex("12 \\text{ cm}^2", all), "12");
  assert.equal(normalizeLatex(".5", all), "\\frac{1}{2}");
  assert.equal(normalizeLatex("10 percent", all), "10\\\\%");
  assert.equal(boxedContent("\\boxed{1} and \\boxed{2}", "last"), "1,2");
  assert.equal(boxedContent("\\boxed{1} so \\boxed{2}", "last"), "2");
  assert.equal(boxedContent("\\boxed{1} so \\boxed{2}", "all"), "1,2");
});

Deno.test("extractive match prefers the final-answer anchor and the match that ends last", () => {
  const pred = [{ kind: "expr" }, { kind: "latex", boxedPriority: 0 }] as const;
  const [first] = extractTargets("First 12, then the final answer is 34. I hope it is correct.", pred);
  assert.ok(sameExtraction(first, extractTargets("34", [{ kind: "expr" }])[0]));
  const letters = extractTargets("Thinking about A and B...\nAnswer: C", [{ kind: "indices", choices: 4 }]);
  assert.deepEqual(letters, ["C", "C"]);
  assert.deepEqual(extractTargets("no digits", pred), []);
});

Deno.test("LiveCodeBench tests are read from JSON and pickled, compressed private cases", () => {
  const hex = (h: string) => new Uint8Array(h.match(/../g)!.map((b) => parseInt(b, 16)));
  const want = '[{"input": "1 2\\n", "output": "3\\n"}] é';
  // pickle.dumps(want, protocol=p) for p = 0, 2, 4, 5, printed by CPython.
  assert.equal(
    unpickleString(
      hex(
        "565b7b22696e707574223a20223120325c75303035636e222c20226f7574707574223a2022335c75303035636e227d5d20e90a70300a2e",
      ),
    ),
    want,
  );
  assert.equal(
    unpickleString(
      hex("800258280000005b7b22696e707574223a20223120325c6e222c20226f7574707574223a2022335c6e227d5d20c3a971002e"),
    ),
    want,
  );
  assert.equal(
    unpickleString(
      hex(
        "8004952c000000000000008c285b7b22696e707574223a20223120325c6e222c20226f7574707574223a2022335c6e227d5d20c3a9942e",
      ),
    ),
    want,
  );
  assert.equal(
    unpickleString(
      hex(
        "8005952c000000000000008c285b7b22696e707574223a20223120325c6e222c20226f7574707574223a2022335c6e227d5d20c3a9942e",
      ),
    ),
    want,
  );
  // A pickle of anything but a string is refused, never evaluated.
  assert.throws(() => unpickleString(hex("80049506000000000000005d944b01612e")), /more than a string/);
  const tests = lcbTests(JSON.stringify({
    public_test_cases: JSON.stringify([{ input: "1", output: "2" }]),
    private_test_cases: [{ input: "3", output: "6" }],
    metadata: JSON.stringify({ func_name: "double" }),
  }));
  assert.deepEqual(tests, { inputs: ["1", "3"], outputs: ["2", "6"], fnName: "double" });
  assert.throws(() => lcbTests(JSON.stringify({ public_test_cases: "", private_test_cases: "" })), /no test cases/);
  assert.equal(extractCode("a\n```python\nx = 1\n```\nb\n```py\ny = 2\n```"), "y = 2");
  assert.equal(extractCode("no fences"), "");
});

Deno.test("pyRepr quotes as Python's repr", () => {
  assert.equal(pyRepr("a'b"), '"a\'b"');
  assert.equal(pyRepr("a\nb\\"), "'a\\nb\\\\'");
});
