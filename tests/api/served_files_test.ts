import assert from "node:assert/strict";
import { join } from "node:path";
import { LOCK_FILE } from "../../src/run/artifact_dir_lock.ts";
import { listServedFiles, LOCK_FILE_NAME, resolveServedFile } from "../../src/api/served_files.ts";

async function withDir(files: Record<string, string>, fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "served_files_" });
  try {
    for (const [name, text] of Object.entries(files)) {
      await Deno.mkdir(join(dir, name, ".."), { recursive: true });
      await Deno.writeTextFile(join(dir, name), text);
    }
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const names = async (dir: string) => (await listServedFiles(dir)).map((f) => f.name);

Deno.test("served files: the lock file name is the run's", () => {
  assert.equal(LOCK_FILE_NAME, LOCK_FILE);
});

Deno.test("served files without a manifest are the known export names only", async () => {
  await withDir({
    "profile_export_aiperf.json": "{}",
    "inputs.json": "{}",
    "logs/infermeter.log": "log",
    "notes.txt": "planted",
    ".ssh/id_rsa": "planted",
    "infermeter.lock": "{}",
    "logs/other.log": "planted",
  }, async (dir) => {
    assert.deepEqual(await names(dir), ["inputs.json", "logs/infermeter.log", "profile_export_aiperf.json"]);
    assert.equal((await resolveServedFile(dir, "inputs.json")).ok, true);
    for (const name of ["notes.txt", ".ssh/id_rsa", "infermeter.lock", "logs/other.log", "missing.json"]) {
      const r = await resolveServedFile(dir, name);
      assert.ok(!r.ok && r.status === 404 && r.message === `Result file not found: ${name}`, name);
    }
    const traversal = await resolveServedFile(dir, "..%2finputs.json");
    assert.ok(!traversal.ok && traversal.status === 400);
  });
});

Deno.test("served files with a manifest are its files (and its sweep points'), never the lock or a way out", async () => {
  const manifest = (files: string[], points: string[] = []) =>
    JSON.stringify({
      producer: "infermeter",
      schema_version: 1,
      kind: points.length > 0 ? "sweep" : "run",
      files: files.map((path) => ({ role: "x", path, label: path })),
      points: points.map((dir) => ({ label: dir, dir })),
    });
  await withDir({
    "run_manifest.json": manifest(
      ["sweep.json", "plots/a.png", "infermeter.lock", "../outside.txt", "/etc/passwd", "a/../notes.txt"],
      ["c1", "../up"],
    ),
    "sweep.json": "{}",
    "plots/a.png": "png",
    "profile_export_aiperf.json": "not listed by the manifest",
    "notes.txt": "planted",
    "infermeter.lock": "{}",
    "c1/run_manifest.json": manifest(["profile_export_aiperf.json"]),
    "c1/profile_export_aiperf.json": "{}",
    "c1/notes.txt": "planted",
  }, async (dir) => {
    assert.deepEqual(await names(dir), [
      "c1/profile_export_aiperf.json",
      "c1/run_manifest.json",
      "plots/a.png",
      "run_manifest.json",
      "sweep.json",
    ]);
    assert.equal((await resolveServedFile(dir, "c1%2Fprofile_export_aiperf.json")).ok, true);
    for (const name of ["profile_export_aiperf.json", "notes.txt", "infermeter.lock", "c1/notes.txt"]) {
      assert.equal((await resolveServedFile(dir, name)).ok, false, name);
    }
  });
});

Deno.test("served files never include a symbolic link, even one pointing inside the directory", async () => {
  await withDir({ "notes.txt": "planted", "inputs.json": "{}" }, async (dir) => {
    await Deno.symlink(join(dir, "notes.txt"), join(dir, "report.html"));
    assert.deepEqual(await names(dir), ["inputs.json"]);
    const r = await resolveServedFile(dir, "report.html");
    assert.ok(!r.ok && r.status === 404);
  });
});
