/**
 * One run per artifact directory: two runs writing one `profile_export.jsonl` interleave their lines and keep one
 * run's summary. The run creates `infermeter.lock` in the directory (exclusively: `createNew`) holding its pid,
 * host and start time, and removes it at exit. A second run finds it and refuses before anything is sent; a lock
 * left by a run that no longer exists (killed, power loss) is taken over with a notice.
 *
 * Creating the directory and the lock also proves the directory is writable, so a path that is a file, a
 * read-only directory or a full disk is reported here, as input the user must fix, before anything is sent.
 */
import { joinPath as join } from "../runtime/file_path.ts";
import { InputError } from "../base/input_error.ts";

export const LOCK_FILE = "infermeter.lock";

/** What the lock file holds. */
export interface LockHolder {
  readonly pid: number;
  readonly hostname: string;
  /** Epoch ms when the run took the lock. */
  readonly started_at_ms: number;
}

/** Whether the process that wrote `holder` still runs; undefined when this platform cannot tell. */
export type IsAlive = (holder: LockHolder) => boolean | undefined;

export interface LockOptions {
  readonly pid?: number;
  readonly hostname?: string;
  readonly now?: () => number;
  readonly isAlive?: IsAlive;
  /** A lock file that cannot be read as JSON younger than this is being written by its run: not stale. */
  readonly partialGraceMs?: number;
}

/** A held lock; disposing it (or `release()`) removes the lock file. */
export interface ArtifactDirLock extends AsyncDisposable {
  readonly path: string;
  /** Set when a stale lock of a run that no longer exists was taken over: say so to the user. */
  readonly notice?: string;
  release(): Promise<void>;
}

/**
 * Creates `dir` (and `dir/logs`) and takes its lock.
 *
 * @throws {InputError} when `dir` is a file, cannot be created or written, or another live run holds it.
 */
export async function lockArtifactDir(dir: string, options: LockOptions = {}): Promise<ArtifactDirLock> {
  // Synchronous calls: this is on the way to the first request, where each async file call (and its NotFound
  // error) costs more than the work itself (docs/performance.md §4).
  makeDirectory(dir);
  makeDirectory(join(dir, "logs"));
  const path = join(dir, LOCK_FILE);
  const me: LockHolder = {
    pid: options.pid ?? Deno.pid,
    hostname: options.hostname ?? Deno.hostname(),
    started_at_ms: (options.now ?? Date.now)(),
  };
  const myText = JSON.stringify(me) + "\n";
  const isAlive = options.isAlive ?? processAlive;
  let notice: string | undefined;
  // A few rounds at most: each failed round means another run created or removed the lock in between.
  for (let round = 0; round < 4; round++) {
    try {
      Deno.writeTextFileSync(path, myText, { createNew: true });
      return held(path, myText, notice);
    } catch (err) {
      if (!(err instanceof Deno.errors.AlreadyExists)) {
        throw new InputError(`cannot write into the artifact directory ${dir}: ${reason(err)}; ${FIX}`);
      }
    }
    const seen = await readHolder(path);
    if (seen === undefined) continue; // removed in between: try again
    const stale = seen.holder === undefined
      ? (options.now ?? Date.now)() - seen.mtimeMs > (options.partialGraceMs ?? 5000)
      : seen.holder.hostname === me.hostname && seen.holder.pid !== me.pid && isAlive(seen.holder) === false;
    if (!stale) throw new InputError(inUse(dir, path, seen.holder));
    // Move the stale lock aside atomically; if what was moved is not what was judged stale (another run took
    // it over in between), put it back and look again.
    const aside = `${path}.stale-${me.pid}`;
    try {
      await Deno.rename(path, aside);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) continue;
      throw new InputError(`cannot replace the stale lock ${path}: ${reason(err)}; delete it by hand.`);
    }
    const moved = await Deno.readTextFile(aside).catch(() => undefined);
    if (moved !== seen.text) await Deno.link(aside, path).catch(() => {});
    await Deno.remove(aside).catch(() => {});
    if (moved === seen.text) notice = staleNotice(dir, seen.holder);
  }
  throw new InputError(`could not take the lock ${path}: other runs keep creating it; ${FIX}`);
}

const FIX = "give a writable directory with --artifact-dir (it is created when missing).";

function held(path: string, text: string, notice: string | undefined): ArtifactDirLock {
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    // Remove only our own lock: a run that took over a lock it wrongly judged stale must not lose it to us.
    const now = await Deno.readTextFile(path).catch(() => undefined);
    if (now === text) await Deno.remove(path).catch(() => {});
  };
  return { path, notice, release, [Symbol.asyncDispose]: release };
}

function makeDirectory(dir: string): void {
  let info: Deno.FileInfo | undefined;
  try {
    info = Deno.statSync(dir);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) {
      throw new InputError(`cannot use the artifact directory ${dir}: ${reason(err)}; ${FIX}`);
    }
  }
  if (info !== undefined) {
    if (info.isDirectory) return;
    throw new InputError(`the artifact directory ${dir} is a file, not a directory; ${FIX}`);
  }
  try {
    Deno.mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new InputError(`cannot create the artifact directory ${dir}: ${reason(err)}; ${FIX}`);
  }
}

async function readHolder(
  path: string,
): Promise<{ text: string; holder: LockHolder | undefined; mtimeMs: number } | undefined> {
  let text: string;
  let mtimeMs: number;
  try {
    [text, mtimeMs] = await Promise.all([
      Deno.readTextFile(path),
      Deno.stat(path).then((s) => s.mtime?.getTime() ?? 0),
    ]);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw new InputError(`cannot read the lock ${path}: ${reason(err)}; delete it if no run is using it.`);
  }
  return { text, holder: parseHolder(text), mtimeMs };
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const v = JSON.parse(text);
    if (Number.isSafeInteger(v?.pid) && typeof v.hostname === "string" && Number.isFinite(v.started_at_ms)) return v;
  } catch {
    // A lock being written, or not ours: judged by its age.
  }
  return undefined;
}

function inUse(dir: string, path: string, holder: LockHolder | undefined): string {
  const who = holder === undefined
    ? "a run that is starting"
    : `the run with pid ${holder.pid} on ${holder.hostname}, started ${new Date(holder.started_at_ms).toISOString()}`;
  return `the artifact directory ${dir} is in use by ${who}; wait for it to finish or give this run its own ` +
    `--artifact-dir. If no run is using it, delete ${path}.`;
}

function staleNotice(dir: string, holder: LockHolder | undefined): string {
  const who = holder === undefined
    ? "an unreadable lock"
    : `the lock of pid ${holder.pid} (started ${new Date(holder.started_at_ms).toISOString()}), which no longer runs`;
  return `Took over ${who} in ${dir}; files of that earlier run there are overwritten.`;
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Linux: the pid exists and started no later than the lock was taken (a pid reused by a later process is not the
 * lock's run). Elsewhere: unknown, so the lock is kept and the message says how to remove it.
 */
function processAlive(holder: LockHolder): boolean | undefined {
  if (Deno.build.os !== "linux") return undefined;
  let stat: string;
  try {
    stat = Deno.readTextFileSync(`/proc/${holder.pid}/stat`);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    return undefined;
  }
  const started = processStartMs(stat);
  // Clock ticks make the start time coarse (10 ms); allow a second for clock adjustments.
  return started === undefined || started <= holder.started_at_ms + 1000;
}

/** Epoch ms a process started, from its /proc/PID/stat and the boot time in /proc/stat. */
function processStartMs(stat: string): number | undefined {
  // Field 22 (starttime, in clock ticks after boot) counted after the command name, which may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[19]);
  let boot: number;
  try {
    boot = Number(/^btime (\d+)$/m.exec(Deno.readTextFileSync("/proc/stat"))?.[1]);
  } catch {
    return undefined;
  }
  if (!Number.isFinite(ticks) || !Number.isFinite(boot)) return undefined;
  return boot * 1000 + ticks * 10; // USER_HZ is 100 on every Linux ABI
}
