/**
 * GPQA Diamond as AIPerf 0.13 sends it (lighteval's recipe, simple-evals' prompt): `Idavidrein/gpqa` subset
 * `gpqa_diamond` split `train`; the correct answer and the three incorrect ones are put in an order drawn by Python's
 * `random.Random(sha256(question) mod 2^32).shuffle` (so the gold letter is the same on every run and in AIPerf), and
 * the question asks for a last line `Answer: $LETTER`. 32768 tokens.
 */
import type { AccuracyBenchmark, BenchmarkProblem } from "../accuracy_benchmark.ts";
import { PythonRandom } from "../../../base/python_random.ts";
import { textColumn } from "../row_column.ts";
import { GPQA_DIAMOND_BENCHMARK_DECLARATION } from "../accuracy_declarations.ts";

const REPO = "Idavidrein/gpqa";
const WHERE = "--accuracy-benchmark gpqa_diamond";
const ANSWERS = ["Correct Answer", "Incorrect Answer 1", "Incorrect Answer 2", "Incorrect Answer 3"];

/** The positions (0 = the correct answer) in which the four answers of `question` are shown. */
export async function gpqaOrder(question: string): Promise<number[]> {
  // Web Crypto, not node:crypto: the benchmark registry is loaded with profile's options, and Node's crypto module
  // would load Node's streams and ciphers at every start.
  const bytes = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(question)));
  const digest = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  const order = [0, 1, 2, 3];
  new PythonRandom(parseInt(digest.slice(-8), 16)).shuffle(order);
  return order;
}

export const GPQA_DIAMOND_BENCHMARK: AccuracyBenchmark = {
  ...GPQA_DIAMOND_BENCHMARK_DECLARATION,
  defaultGrader: "lighteval_gpqa",
  defaultNShots: 0,
  defaultEnableCot: false,
  repositories: [REPO],
  async load(ctx) {
    const problems: BenchmarkProblem[] = [];
    for (const row of await ctx.source.rows(REPO, "train", "gpqa_diamond")) {
      const question = textColumn(row, "Question", WHERE);
      const raw = ANSWERS.map((c) => textColumn(row, c, WHERE));
      const order = await gpqaOrder(question);
      const [a, b, c, d] = order.map((i) => raw[i]);
      const prompt = "Answer the following multiple choice question. The last line of your response should be of " +
        "the following format: 'Answer: $LETTER' (without quotes) where LETTER is one of ABCD. Think step by step " +
        `before answering.\n\n${question}\n\nA) ${a}\nB) ${b}\nC) ${c}\nD) ${d}`;
      problems.push({ prompt, groundTruth: "ABCD"[order.indexOf(0)], task: "gpqa_diamond", generationSize: 32768 });
    }
    return problems;
  },
};
