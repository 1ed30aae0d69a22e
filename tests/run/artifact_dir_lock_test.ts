import assert from "node:assert/strict";
import { join } from "node:path";
import { LOCK_FILE, lockArtifactDir } from "../../src/run/artifact_dir_lock.ts";
import { InputError } from "../../src/base/input_error.ts";

async function tmp(): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.makeTempDir({ prefix: "infermeter_lock_" });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);

Deno.test("lockArtifactDir creates the directory and its logs folder, holds the lock, and removes it on release", async () => {
  await using root = await tmp();
  const dir = join(root.path, "a", "b");
  const lock = await lockArtifactDir(dir, { pid: 42, hostname: "h", now: () => 1000 });
  assert.ok(await exists(join(dir, "logs")));
  assert.deepEqual(JSON.parse(await Deno.readTextFile(join(dir, LOCK_FILE))), {
    pid: 42,
    hostname: "h",
    started_at_ms: 1000,
  });
  assert.equal(lock.notice, undefined);
  await lock.release();
  assert.equal(await exists(join(dir, LOCK_FILE)), false);
  await lock.release(); // idempotent
});

Deno.test("lockArtifactDir refuses a directory held by a live run, naming it and how to free the directory", async () => {
  await using tmpDir = await tmp();
  const dir = tmpDir.path;
  await using _first = await lockArtifactDir(dir, { pid: 7, hostname: "h", now: () => 0 });
  await assert.rejects(
    () => lockArtifactDir(dir, { pid: 8, hostname: "h", isAlive: () => true }),
    (err: Error) => {
      assert.ok(err instanceof InputError);
      assert.match(err.message, /is in use by the run with pid 7 on h, started 1970-01-01T00:00:00\.000Z/);
      assert.match(
        err.message,
        /give this run its own --artifact-dir\. If no run is using it, delete .*infermeter\.lock/,
      );
      return true;
    },
  );
  // Unknown liveness (another platform) and another host are both treated as alive.
  await assert.rejects(() => lockArtifactDir(dir, { pid: 8, hostname: "h", isAlive: () => undefined }), InputError);
  await assert.rejects(() => lockArtifactDir(dir, { pid: 8, hostname: "other", isAlive: () => false }), InputError);
});

Deno.test("lockArtifactDir takes over the lock of a run that no longer exists, with a notice", async () => {
  await using tmpDir = await tmp();
  const dir = tmpDir.path;
  await Deno.writeTextFile(join(dir, LOCK_FILE), JSON.stringify({ pid: 7, hostname: "h", started_at_ms: 0 }));
  const lock = await lockArtifactDir(dir, { pid: 8, hostname: "h", now: () => 5, isAlive: () => false });
  assert.match(lock.notice!, /Took over the lock of pid 7 \(started 1970-01-01T00:00:00\.000Z\), which no longer runs/);
  assert.equal(JSON.parse(await Deno.readTextFile(join(dir, LOCK_FILE))).pid, 8);
  assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), ["infermeter.lock", "logs"]);
  await lock.release();
});

Deno.test("lockArtifactDir waits out a lock being written, then treats an unreadable old one as stale", async () => {
  await using tmpDir = await tmp();
  const dir = tmpDir.path;
  await Deno.writeTextFile(join(dir, LOCK_FILE), "");
  const mtime = (await Deno.stat(join(dir, LOCK_FILE))).mtime!.getTime();
  await assert.rejects(() => lockArtifactDir(dir, { now: () => mtime + 100 }), /in use by a run that is starting/);
  const lock = await lockArtifactDir(dir, { now: () => mtime + 60_000 });
  assert.match(lock.notice!, /Took over an unreadable lock/);
  await lock.release();
});

Deno.test("lockArtifactDir leaves a lock it no longer owns in place", async () => {
  await using tmpDir = await tmp();
  const dir = tmpDir.path;
  const lock = await lockArtifactDir(dir, { pid: 1, hostname: "h" });
  await Deno.writeTextFile(join(dir, LOCK_FILE), JSON.stringify({ pid: 2, hostname: "h", started_at_ms: 0 }));
  await lock.release();
  assert.equal(JSON.parse(await Deno.readTextFile(join(dir, LOCK_FILE))).pid, 2);
});

Deno.test("lockArtifactDir reports a path that is a file, or under one, as input to fix", async () => {
  await using tmpDir = await tmp();
  const dir = tmpDir.path;
  const file = join(dir, "f");
  await Deno.writeTextFile(file, "x");
  await assert.rejects(() => lockArtifactDir(file), (err: Error) => {
    assert.ok(err instanceof InputError);
    assert.match(err.message, /the artifact directory .*f is a file, not a directory; give a writable directory/);
    return true;
  });
  await assert.rejects(() => lockArtifactDir(join(file, "sub")), /cannot use the artifact directory .*Not a directory/);
});

Deno.test("lockArtifactDir judges a real process: this one is alive, a finished child is not", async () => {
  if (Deno.build.os !== "linux") return;
  await using tmpDir = await tmp();
  const dir = tmpDir.path;
  const lockPath = join(dir, LOCK_FILE);
  await Deno.writeTextFile(
    lockPath,
    JSON.stringify({ pid: Deno.pid, hostname: Deno.hostname(), started_at_ms: Date.now() }),
  );
  await assert.rejects(() => lockArtifactDir(dir, { pid: Deno.pid + 1 }), /in use by the run with pid/);
  const child = new Deno.Command("true").spawn();
  const { pid } = child;
  await child.status;
  await Deno.writeTextFile(lockPath, JSON.stringify({ pid, hostname: Deno.hostname(), started_at_ms: Date.now() }));
  const lock = await lockArtifactDir(dir);
  assert.match(lock.notice!, new RegExp(`pid ${pid}`));
  await lock.release();
  // A pid that exists but started after the lock was taken is a reused pid, not the lock's run.
  await Deno.writeTextFile(lockPath, JSON.stringify({ pid: Deno.pid, hostname: Deno.hostname(), started_at_ms: 0 }));
  const taken = await lockArtifactDir(dir, { pid: Deno.pid + 1 });
  assert.ok(taken.notice);
  await taken.release();
});
