/**
 * `deno task bundle`: one self-contained JavaScript file, `dist/infermeter.js`, that runs with nothing but Deno
 * (`deno run -A --v8-flags=… infermeter.js …`, the flags of src/runtime/v8_flags.ts), offline, from any directory.
 * It is the stand-in for `deno compile` where the compile runtime cannot be downloaded. Workers re-enter the same
 * file (src/runtime/spawn_worker.ts), and the corpus text is inlined, so nothing else is needed beside it.
 *
 * After bundling, the file is copied to an empty temporary directory and smoke-tested there.
 */
import { V8_FLAGS_ARG } from "../../src/runtime/v8_flags.ts";

const root = new URL("../../", import.meta.url).pathname;
const out = `${root}dist/infermeter.js`;

async function run(cmd: string, args: string[], cwd = root): Promise<{ ok: boolean; out: string }> {
  const r = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" }).output();
  const text = new TextDecoder().decode(r.stdout) + new TextDecoder().decode(r.stderr);
  return { ok: r.success, out: text };
}

await Deno.mkdir(`${root}dist`, { recursive: true });
const bundled = await run(Deno.execPath(), ["bundle", "--quiet", "--output", out, "main.ts"]);
if (!bundled.ok) {
  console.error(`bundle failed:\n${bundled.out}`);
  Deno.exit(1);
}
const size = (await Deno.stat(out)).size;

const empty = await Deno.makeTempDir({ prefix: "infermeter-bundle-" });
try {
  await Deno.copyFile(out, `${empty}/infermeter.js`);
  const bundleRun = ["run", "-A", V8_FLAGS_ARG, "--no-remote", "infermeter.js"];
  const version = await run(Deno.execPath(), [...bundleRun, "--version"], empty);
  const help = await run(Deno.execPath(), [...bundleRun, "profile", "--help"], empty);
  if (!version.ok || !help.ok || !help.out.includes("--streaming")) {
    console.error(`the bundle does not run from an empty directory:\n${version.out}\n${help.out}`);
    Deno.exit(1);
  }
  console.log(
    `dist/infermeter.js (${
      (size / 1024 / 1024).toFixed(2)
    } MB) runs from an empty directory: version ${version.out.trim()}`,
  );
  console.log(`Use it with: deno run -A ${V8_FLAGS_ARG} infermeter.js profile --help`);
} finally {
  await Deno.remove(empty, { recursive: true });
}
