/**
 * The one error the configuration layer throws: every problem found in flags, YAML and environment, reported
 * together so the user fixes them in one pass. Each problem is one sentence naming the value and the fix.
 */

/** Options for {@link ConfigError}. */
export interface ConfigErrorOptions {
  /** The underlying error (e.g. a YAML syntax error or a failed file read). @default undefined */
  readonly cause?: unknown;
}

export class ConfigError extends Error {
  /** One line per problem, in the order found. */
  readonly problems: readonly string[];

  constructor(problems: readonly string[], options: ConfigErrorOptions = {}) {
    if (problems.length === 0) throw new RangeError("ConfigError needs at least one problem; pass one or more.");
    const message = problems.length === 1
      ? problems[0]
      : `${problems.length} configuration problems:\n${problems.map((p) => `  - ${p}`).join("\n")}`;
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ConfigError";
    this.problems = Object.freeze([...problems]);
  }
}
