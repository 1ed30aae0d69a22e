/**
 * A loopback connection whose read is pending while its data has already arrived: the read completes as soon as
 * the runtime polls its sockets. For tests of code that must let socket reads in between slices of work.
 */
export interface ReadyRead {
  /** Whether the pending read has completed. */
  readonly done: () => boolean;
  readonly close: () => void;
}

export async function readyRead(): Promise<ReadyRead> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const [server, client] = await Promise.all([
    listener.accept(),
    Deno.connect({ hostname: "127.0.0.1", port: (listener.addr as Deno.NetAddr).port }),
  ]);
  listener.close();
  let completed = false;
  client.read(new Uint8Array(8)).then(() => completed = true, () => completed = true);
  await server.write(new Uint8Array([7]));
  return {
    done: () => completed,
    close: () => {
      server.close();
      client.close();
    },
  };
}

/** Keeps the thread busy for `ms` without yielding (the CPU work being sliced). */
export function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* work */ }
}
