/**
 * How to start another infermeter process (the demo's simulated server, benchmark children): the compiled
 * binary runs itself; under `deno run` / a bundle it is `deno run -A <main module>`.
 */
const mainModule = Deno.mainModule;
const execName = Deno.execPath().split(/[\\/]/).pop() ?? "";
const isDenoRuntime = /^deno(\.exe)?$/.test(execName);

export const selfCommand: { readonly execPath: string; readonly args: readonly string[] } = {
  execPath: Deno.execPath(),
  args: isDenoRuntime ? ["run", "-A", mainModule] : [],
};
