/**
 * Yields to the event loop in a way that lets pending socket I/O complete before the caller resumes.
 *
 * Why not a `MessageChannel` round trip (~5 µs, `next_macrotask.ts`): Deno's runtime (tokio, one thread) asks the
 * kernel which sockets are readable only when it runs out of ready tasks, or after a number of task polls
 * (`DENO_TOKIO_EVENT_INTERVAL`, 61). A posted message makes the event loop ready again at once, so a chain of
 * such yields went on for 3,485–3,871 rounds before a socket read pending the whole time was delivered
 * (`scripts/bench/yield_probe.ts`; `setImmediate` 58–62; 1 with the interval set to 1, which only works when set
 * before the runtime starts). Code that sliced its work with them to let reads in held those reads up instead,
 * and their timestamps with them.
 *
 * Here each round writes one byte to a loopback TCP connection this thread holds to itself and reads it back.
 * That read can only complete once the runtime has polled its sockets, and every other socket that became
 * readable meanwhile is delivered in the same turn. A round costs ~11–14 µs (two syscalls and the poll), and
 * callers waiting at the same time share it. Where the pair cannot be opened (no network permission), rounds
 * fall back to the message round trip.
 *
 * The pair (two descriptors) is opened on the first `wait()` and held until `close()`, so an owner that waits
 * must close it when done.
 */
import { type SocketOps, socketOps } from "./socket_ops.ts";
import { nextMacrotask } from "./next_macrotask.ts";

/** What slicing code awaits between slices; `IoYield.wait` or, where no socket matters, a plain yield. */
export type YieldToIo = () => Promise<void>;

const ONE_BYTE = new Uint8Array([1]);

interface Pair {
  readonly conns: readonly [Deno.Conn, Deno.Conn];
  readonly writer: SocketOps;
  readonly reader: SocketOps;
}

export class IoYield {
  #pair: Promise<Pair | undefined> | undefined;
  #round: Promise<void> | undefined;
  #closed = false;
  /**
   * Larger than the one byte a round reads, and this matters: a read that fills its whole buffer leaves the socket
   * marked readable in the runtime, so the next round's read would complete at once without a poll (the probe's
   * `io` row then reads up to ~2,000 yields). A read that comes back short clears that mark.
   */
  readonly #sink = new Uint8Array(64);

  /** Resolves after the runtime has polled its sockets once (all pending reads that could complete, have). */
  readonly wait: YieldToIo = () => this.#round ??= this.#runRound();

  async #runRound(): Promise<void> {
    try {
      const pair = this.#closed ? undefined : await (this.#pair ??= openPair());
      if (pair === undefined || this.#closed) {
        await nextMacrotask();
        return;
      }
      await pair.writer.write(ONE_BYTE);
      await pair.reader.read(this.#sink);
    } catch {
      // Closed while a round was in flight: its waiters resume all the same.
    } finally {
      this.#round = undefined;
    }
  }

  /** Releases the socket pair; later `wait()` calls fall back to the message round trip. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pair?.then((pair) => {
      for (const c of pair?.conns ?? []) {
        try {
          c.close();
        } catch {
          // Already closed.
        }
      }
    });
  }
}

async function openPair(): Promise<Pair | undefined> {
  let listener: Deno.Listener;
  try {
    listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  } catch {
    return undefined;
  }
  const [accepted, connected] = await Promise.allSettled([
    listener.accept(),
    Deno.connect({ hostname: "127.0.0.1", port: (listener.addr as Deno.NetAddr).port }),
  ]);
  listener.close();
  if (
    accepted.status === "fulfilled" && connected.status === "fulfilled" &&
    // The listener was open to every local process for a moment: make sure the peer accepted is our own socket.
    (accepted.value.remoteAddr as Deno.NetAddr).port === (connected.value.localAddr as Deno.NetAddr).port
  ) {
    const [a, b] = [connected.value, accepted.value];
    a.setNoDelay(true);
    return { conns: [a, b], writer: socketOps(a, true), reader: socketOps(b, true) };
  }
  for (const r of [accepted, connected]) if (r.status === "fulfilled") r.value.close();
  return undefined;
}
