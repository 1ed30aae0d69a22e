/**
 * Reads and writes of one socket, through the runtime's own read/write ops where they can be found, else through
 * `Deno.Conn`'s public methods.
 *
 * Why: `Deno.Conn.read` wraps the op in an async function that also adds its pending promise to, and deletes it
 * from, a per-connection `Set` (kept only for `ref()`/`unref()`, which the engine never calls). With a few hundred
 * streams that wrapper was 41 % of everything the engine allocated (V8 sampling heap profile, 256 streams: 94 of
 * 228 MB in 5 s) and, once a set's table is old, every read leaves old-generation garbage that brings on full
 * collections, the longest pauses of the thread that stamps reads. The op itself is what the wrapper awaits:
 * same bytes, same errors, same order; 0 at end of stream where the wrapper says `null`.
 *
 * The ops sit on an internal object of the runtime (`Deno[Deno.internal].core`), so they are looked up once and
 * checked; where a runtime lacks them, `direct` is false and the public methods are used. Deno is pinned for
 * the binaries (`deno compile`), and the test suite runs both paths.
 */

/** A socket's reads and writes. `read` resolves to the number of bytes read; `null` or 0 means end of stream. */
export interface SocketOps {
  readonly read: (buf: Uint8Array) => Promise<number | null>;
  readonly write: (bytes: Uint8Array) => Promise<number>;
  /** True when these go straight to the runtime's ops. */
  readonly direct: boolean;
}

interface CoreOps {
  read(rid: number, buf: Uint8Array): Promise<number>;
  write(rid: number, bytes: Uint8Array): Promise<number>;
}

const RID_SYMBOL_DESCRIPTION = "Deno.internal.rid";
const core = findCoreOps();

/** `allowDirect: false` forces the public methods (tests of both paths, or a runtime that misbehaves). */
export function socketOps(conn: Deno.Conn, allowDirect = true): SocketOps {
  const rid = allowDirect && core !== undefined ? resourceId(conn) : undefined;
  if (core === undefined || rid === undefined) {
    return { read: (buf) => conn.read(buf), write: (bytes) => conn.write(bytes), direct: false };
  }
  const ops = core;
  return { read: (buf) => ops.read(rid, buf), write: (bytes) => ops.write(rid, bytes), direct: true };
}

function findCoreOps(): CoreOps | undefined {
  try {
    const internal = (Deno as unknown as Record<symbol, unknown>)[
      Object.getOwnPropertySymbols(Deno).find((s) => s.description === "Deno.internal") ?? Symbol()
    ] as { core?: Partial<CoreOps> } | undefined;
    const c = internal?.core;
    if (typeof c?.read === "function" && typeof c.write === "function") return c as CoreOps;
  } catch {
    // A runtime shaped differently: the public methods it is.
  }
  return undefined;
}

function resourceId(conn: Deno.Conn): number | undefined {
  const sym = Object.getOwnPropertySymbols(conn).find((s) => s.description === RID_SYMBOL_DESCRIPTION);
  const rid = sym === undefined ? undefined : (conn as unknown as Record<symbol, unknown>)[sym];
  return typeof rid === "number" && Number.isInteger(rid) && rid >= 0 ? rid : undefined;
}
