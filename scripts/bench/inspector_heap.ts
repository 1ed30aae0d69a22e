/**
 * The live memory (JS heap and ArrayBuffers) of another Deno process after a full garbage collection, read over its inspector (started with
 * `--inspect=127.0.0.1:PORT`): `HeapProfiler.collectGarbage`, then `Runtime.getHeapUsage`. Sampled over a run, its
 * slope is the memory the process really keeps per finished request, without the garbage an RSS curve also counts.
 */

/** A connection to one process's inspector. */
export class InspectorHeap {
  readonly #socket: WebSocket;
  #nextId = 1;
  readonly #waiting = new Map<number, (result: unknown) => void>();

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.onmessage = (e) => {
      const message = JSON.parse(String(e.data)) as { id?: number; result?: unknown; error?: unknown };
      if (message.id === undefined) return;
      this.#waiting.get(message.id)?.(message.error === undefined ? message.result : { error: message.error });
      this.#waiting.delete(message.id);
    };
  }

  /** Connects to the inspector at `127.0.0.1:port`, waiting up to `timeoutMs` for it to listen. */
  static async connect(port: number, timeoutMs = 20_000): Promise<InspectorHeap> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      try {
        const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json() as {
          webSocketDebuggerUrl: string;
        }[];
        const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
        await new Promise((resolve, reject) => {
          socket.onopen = resolve;
          socket.onerror = () => reject(new Error("inspector connection failed"));
        });
        return new InspectorHeap(socket);
      } catch (err) {
        if (Date.now() > until) throw err;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  #call(method: string): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve);
      this.#socket.send(JSON.stringify({ id, method }));
    });
  }

  /**
   * Bytes live after a full collection: the JS heap's objects and the ArrayBuffers' backing stores (where typed-array
   * columns live, outside the heap); undefined when the process did not answer.
   */
  async liveBytes(): Promise<number | undefined> {
    await this.#call("HeapProfiler.collectGarbage");
    const usage = await this.#call("Runtime.getHeapUsage") as { usedSize?: number; backingStorageSize?: number };
    return usage.usedSize === undefined ? undefined : usage.usedSize + (usage.backingStorageSize ?? 0);
  }

  close(): void {
    this.#socket.close();
  }
}

/** A free loopback TCP port (bound, then released). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}
