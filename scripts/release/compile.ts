/**
 * `deno task compile`: single-file executables for Linux x64/arm64 and macOS x64/arm64 in `dist/`.
 *
 * `deno compile` downloads a small runtime (`denort`) per target from dl.deno.land. Where that host cannot be
 * reached (air-gapped build machines) a target is reported as skipped, not failed; `deno task bundle` gives
 * a single JavaScript file that needs only an installed Deno. The binaries carry infermeter's V8 flags
 * (src/runtime/v8_flags.ts).
 */
import { V8_FLAGS_ARG } from "../../src/runtime/v8_flags.ts";

const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
] as const;

const root = new URL("../../", import.meta.url).pathname;
await Deno.mkdir(`${root}dist`, { recursive: true });
const only = Deno.args.length > 0 ? Deno.args : TARGETS;
let built = 0;
let failed = 0;
for (const target of only) {
  const output = `dist/infermeter-${target}`;
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["compile", "-A", V8_FLAGS_ARG, "--target", target, "--output", output, "main.ts"],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const log = new TextDecoder().decode(r.stderr);
  if (r.success) {
    built++;
    console.log(`built    ${output}`);
  } else if (/error sending request|dns error|Download|dl\.deno\.land/.test(log)) {
    console.log(`skipped  ${target}: the compile runtime cannot be downloaded from here (offline?)`);
  } else {
    failed++;
    console.log(`FAILED   ${target}:\n${log}`);
  }
}
console.log(
  `${built} built, ${failed} failed, ${only.length - built - failed} skipped` +
    (built === 0 ? " — run `deno task bundle` for the single-file JavaScript build." : ""),
);
Deno.exit(failed > 0 ? 1 : 0);
