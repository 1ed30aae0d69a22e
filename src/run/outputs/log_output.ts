/** `logs/infermeter.log`: opened with the run (every level from DEBUG), listed once it is closed cleanly. */
import type { Output } from "./output.ts";
import { errorReason } from "../unwritten_file.ts";

export const LOG_OUTPUT: Output = {
  name: "log",
  description: "logs/infermeter.log: the run's log at every level",
  enabled: () => true,
  files: (paths) => [{ role: "log", label: "Log File", path: `${paths.dir}/logs/infermeter.log` }],
  finish(ctx, writer) {
    const file = { ...LOG_OUTPUT.files(ctx.paths)[0], path: ctx.log.path };
    if (ctx.log.failure !== undefined) {
      writer.failed({ label: file.label, path: file.path, reason: errorReason(ctx.log.failure) });
    } else writer.listed(file);
    return Promise.resolve();
  },
};
