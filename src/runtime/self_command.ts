/**
 * How to start another infermeter process: the compiled binary runs itself (its V8 flags are baked in); under
 * `deno run` / a bundle it is `deno run -A <main module>`.
 *
 * `selfCommand` starts servers (the demo's simulator, calibrate's reference server) with V8's defaults: the reference
 * server stamps each token just before writing it, and with the client's larger young generation it wrote ~20 µs later
 * at 16 streams (both clients' error rose alike; `docs/performance_history.md` 5.4). `clientCommand` starts
 * load-generating children (profile runs, calibrate's floor client) with the flags the binaries carry.
 */
import { V8_FLAGS_ARG } from "./v8_flags.ts";

const mainModule = Deno.mainModule;
const execName = Deno.execPath().split(/[\\/]/).pop() ?? "";
const isDenoRuntime = /^deno(\.exe)?$/.test(execName);

export interface SelfCommand {
  readonly execPath: string;
  readonly args: readonly string[];
}

export const selfCommand: SelfCommand = {
  execPath: Deno.execPath(),
  args: isDenoRuntime ? ["run", "-A", mainModule] : [],
};

export const clientCommand: SelfCommand = {
  execPath: Deno.execPath(),
  args: isDenoRuntime ? ["run", "-A", V8_FLAGS_ARG, mainModule] : [],
};
