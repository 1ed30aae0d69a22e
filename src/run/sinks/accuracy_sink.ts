/**
 * Grades every profiling answer of an accuracy run as it is measured (AIPerf's `AccuracyRecordProcessor`): the
 * session's gold from the dataset, the answer text (the content channel; the reasoning channel when the content is
 * empty, kept apart as `model_thinking`), the run's grader. Failed requests are graded too, with what they returned.
 * Warmup answers are not graded. Each grade is written to the accuracy JSONL as it completes and kept for the
 * summary. Graders that run code are asynchronous: at most four grade at once, and `close()` waits for them all.
 */
import type { ProcessedRecord } from "../../records/request_record.ts";
import type { AccuracyGold } from "../../dataset/accuracy/accuracy_gold.ts";
import { accuracyJsonlLine, type AccuracyRecord } from "../../export/accuracy_export.ts";
import { epochNsDigits } from "../../export/epoch_ns.ts";
import { LineFileWriter } from "../../export/line_file_writer.ts";
import { type GradingResult, pyRepr } from "../../dataset/accuracy/graders/accuracy_grader.ts";
import type { Logger } from "../../ui/logger.ts";
import type { RecordSink } from "../record_sink.ts";
import { errorReason, type UnwrittenFile, unwrittenLines } from "../unwritten_file.ts";

/** Concurrent asynchronous gradings (sandboxed code runs). */
const MAX_PENDING = 4;

export class AccuracySink implements RecordSink {
  readonly name = "accuracy";
  readonly #gold: AccuracyGold;
  readonly #writer: LineFileWriter;
  readonly #path: string;
  readonly #timeOriginMs: number;
  readonly #logger: Logger;
  readonly #records: AccuracyRecord[] = [];
  readonly #pending = new Set<Promise<void>>();
  readonly #queue: (() => Promise<void>)[] = [];
  #failure: unknown;

  private constructor(gold: AccuracyGold, writer: LineFileWriter, path: string, timeOriginMs: number, logger: Logger) {
    this.#gold = gold;
    this.#writer = writer;
    this.#path = path;
    this.#timeOriginMs = timeOriginMs;
    this.#logger = logger;
  }

  static async open(
    gold: AccuracyGold,
    path: string,
    timeOriginMs: number,
    logger: Logger,
    onFailure?: (error: unknown) => void,
  ): Promise<AccuracySink> {
    return new AccuracySink(gold, await LineFileWriter.open(path, { onFailure }), path, timeOriginMs, logger);
  }

  /** The graded answers so far, in completion order. */
  get records(): readonly AccuracyRecord[] {
    return this.#records;
  }

  measured(record: ProcessedRecord): void {
    if (record.phase !== "profiling") return;
    const problem = this.#gold.problems.get(record.conversationId);
    if (problem === undefined) return;
    const output = record.content !== "" ? record.content : record.reasoning;
    const thinking = record.reasoning !== "" ? record.reasoning : undefined;
    const finish = (g: GradingResult) => {
      const r: AccuracyRecord = {
        sessionNum: record.sessionNum,
        conversationId: record.conversationId,
        xRequestId: record.xRequestId,
        workerId: record.workerId,
        timestampNs: epochNsDigits(this.#timeOriginMs, record.endAt),
        task: problem.task,
        graderName: this.#gold.grader.name,
        passed: g.correct,
        unparsed: g.unparsed,
        confidence: g.confidence,
        expected: g.groundTruth,
        actual: g.extractedAnswer,
        explanation: g.reasoning,
        modelOutput: output,
        modelThinking: thinking,
      };
      this.#records.push(r);
      this.#writer.writeLine(accuracyJsonlLine(r));
      if (this.#gold.verbose) {
        const preview = output.trim().replaceAll("\n", "\\n").slice(0, 200);
        this.#logger.info(
          `[accuracy] session=${r.sessionNum} correct=${g.correct ? "True" : "False"} unparsed=` +
            `${g.unparsed ? "True" : "False"} reason=${pyRepr(g.reasoning)} extracted=` +
            `${pyRepr(g.extractedAnswer.slice(0, 120))} response_len=${[...output].length} ` +
            `response_preview=${pyRepr(preview)}`,
        );
      }
    };
    // Graded in arrival order; a grader that runs code starts only when fewer than MAX_PENDING are running.
    this.#queue.push(() => {
      const graded = this.#gold.grader.grade(output, problem.groundTruth);
      if (!(graded instanceof Promise)) {
        finish(graded);
        return Promise.resolve();
      }
      return graded.then(finish, (err) => this.#logger.error(`accuracy grading failed: ${errorReason(err)}`));
    });
    this.#drain();
  }

  #drain(): void {
    while (this.#pending.size < MAX_PENDING && this.#queue.length > 0) {
      const run = this.#queue.shift()!;
      const p: Promise<void> = run().finally(() => {
        this.#pending.delete(p);
        this.#drain();
      });
      this.#pending.add(p);
    }
  }

  /** Waits for every grading, then flushes the file. Never rejects: a failed write is reported by `unwritten`. */
  async close(): Promise<void> {
    while (this.#pending.size > 0 || this.#queue.length > 0) {
      this.#drain();
      await Promise.all([...this.#pending]);
    }
    try {
      await this.#writer.close();
    } catch (err) {
      this.#failure ??= err;
    }
  }

  unwritten(): UnwrittenFile | undefined {
    return unwrittenLines("Accuracy JSONL", this.#path, this.#failure ?? this.#writer.failure, this.#writer);
  }
}
