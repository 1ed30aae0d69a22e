/** `inputs.json`: the exact body of every request, per session, streamed one session at a time. */
import { writeInputsJson } from "../../export/inputs_json.ts";
import type { Output } from "./output.ts";

export const INPUTS_OUTPUT: Output = {
  name: "inputs_json",
  description: "inputs.json: every request body the run sends, per session (AIPerf's inputs file)",
  enabled: () => true,
  files: (paths) => [{ role: "inputs_json", label: "Inputs", path: paths.inputsJson }],
  async finish(ctx, writer) {
    // Request-free turns (an agent orchestrator's steps) send nothing: they have no body to list.
    const sessions = ctx.conversations
      .map((c) => ({ sessionId: c.id, payloads: c.turns.flatMap((t) => t.requestFree === true ? [] : [t.payload]) }))
      .filter((s) => s.payloads.length > 0);
    await writer.stream(INPUTS_OUTPUT.files(ctx.paths)[0], (path) => writeInputsJson(path, sessions));
  },
};
