/**
 * How to start another infermeter process (the demo's simulated server, benchmark children): the compiled
 * binary runs itself (its V8 flags are baked in); under `deno run` / a bundle it is
 * `deno run -A --v8-flags=… <main module>`, with the flags the binaries carry.
 */
import { V8_FLAGS_ARG } from "./v8_flags.ts";

const mainModule = Deno.mainModule;
const execName = Deno.execPath().split(/[\\/]/).pop() ?? "";
const isDenoRuntime = /^deno(\.exe)?$/.test(execName);

export const selfCommand: { readonly execPath: string; readonly args: readonly string[] } = {
  execPath: Deno.execPath(),
  args: isDenoRuntime ? ["run", "-A", V8_FLAGS_ARG, mainModule] : [],
};
