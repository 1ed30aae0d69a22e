/** `profile_export_console.txt`: the console text as printed (tables and footer). */
import type { Output } from "./output.ts";

export const CONSOLE_OUTPUT: Output = {
  name: "console_txt",
  description: "profile_export_console.txt: the console tables and footer as printed",
  enabled: () => true,
  files: (paths) => [{ role: "console_txt", label: "Console Export", path: paths.consoleTxt }],
  showsConsole: true,
  async finish(ctx, writer) {
    if (ctx.consoleText !== undefined) await writer.write(CONSOLE_OUTPUT.files(ctx.paths)[0], ctx.consoleText + "\n");
  },
};
