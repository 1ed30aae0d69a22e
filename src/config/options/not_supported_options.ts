/**
 * AIPerf `profile` flags infermeter recognises without doing what AIPerf does with them: parsed, so a user gets a
 * precise "not supported yet" error instead of "unknown option".
 */
import type { UnsupportedOptionSpec, ValueArity } from "../../base/option_spec.ts";

/** Shorthand for the reserved AIPerf flags below. */
function reserved(
  arity: ValueArity,
  flags: readonly string[],
  short?: string,
): UnsupportedOptionSpec<"Not Supported Yet"> {
  return {
    type: "unsupported",
    arity,
    flags,
    short,
    group: "Not Supported Yet",
    help: "AIPerf option that infermeter does not support yet.",
  };
}

export const NOT_SUPPORTED_OPTIONS: readonly UnsupportedOptionSpec<"Not Supported Yet">[] = [
  reserved("required", ["--hf-subset"]),
  reserved("required", ["--system-prompt"]),
  reserved("required", ["--video-batch-size", "--batch-size-video"]),
  reserved("required", ["--tokenizer-revision"]),
  reserved("none", ["--tokenizer-trust-remote-code"]),
  reserved("none", ["--export-http-trace"]),
  reserved("none", ["--export-outputs-json"]),
  reserved("none", ["--auto-plot"]),
  reserved("required", ["--record-processors", "--record-processor-service-count"]),
  reserved("required", ["--stats-interval"]),
  reserved("required", ["--transport", "--transport-type"]),
];
