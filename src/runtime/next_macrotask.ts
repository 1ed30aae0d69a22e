/**
 * Yield to the event loop for ~5 µs (timers and messages run), not the ~2 ms of `setTimeout(0)` here. It does
 * NOT let pending socket reads complete: the runtime keeps running instead of polling its sockets, for thousands
 * of such yields in a row. Slicing on a thread that reads sockets uses `IoYield` (io_yield.ts); this is its
 * fallback and the default where no socket matters (tests, plain code).
 *
 * One MessageChannel is shared while someone waits, and closed when nobody does, so an idle process exits.
 */
let channel: MessageChannel | undefined;
let waiters: (() => void)[] = [];

export function nextMacrotask(): Promise<void> {
  return new Promise((resolve) => {
    waiters.push(resolve);
    if (waiters.length > 1) return;
    if (!channel) {
      channel = new MessageChannel();
      channel.port1.onmessage = () => {
        const ready = waiters;
        waiters = [];
        for (const w of ready) w();
        // Waiters added by the resumed code posted their own message already; close only when idle.
        queueMicrotask(() => {
          if (waiters.length === 0 && channel) {
            channel.port1.close();
            channel.port2.close();
            channel = undefined;
          }
        });
      };
    }
    channel.port2.postMessage(0);
  });
}
