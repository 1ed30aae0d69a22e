/** What grading an accuracy run needs beside its dataset: the grader and each session's gold and task. */
import type { AccuracyGrader } from "./graders/accuracy_grader.ts";

export interface AccuracyGold {
  readonly benchmark: string;
  readonly grader: AccuracyGrader;
  /** Log each grading (`--accuracy-verbose`). */
  readonly verbose: boolean;
  /** By session id. */
  readonly problems: ReadonlyMap<string, { readonly groundTruth: string; readonly task: string }>;
}
