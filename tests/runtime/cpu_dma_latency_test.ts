import assert from "node:assert/strict";
import { CPU_DMA_LATENCY_PATH, currentCpuDmaLatency, holdCpuDmaLatency } from "../../src/runtime/cpu_dma_latency.ts";

const LINUX = Deno.build.os === "linux";

Deno.test({
  name: "holdCpuDmaLatency writes the limit as a 32-bit little-endian value, and release is idempotent",
  ignore: !LINUX,
  fn: () => {
    const path = Deno.makeTempFileSync();
    try {
      const hold = holdCpuDmaLatency(300.7, path);
      assert.equal(hold.held, true);
      assert.equal(hold.requestedUs, 300);
      assert.deepEqual([...Deno.readFileSync(path)], [0x2c, 0x01, 0, 0]);
      assert.equal(currentCpuDmaLatency(path), 300);
      hold.release();
      hold.release(); // idempotent
    } finally {
      Deno.removeSync(path);
    }
  },
});

Deno.test("holdCpuDmaLatency reports why it could not hold the limit, and release is then a no-op", () => {
  const hold = holdCpuDmaLatency(0, "/nonexistent-dir/cpu_dma_latency");
  assert.equal(hold.held, false);
  assert.equal(hold.requestedUs, 0);
  assert.match(hold.reason ?? "", LINUX ? /cannot open \/nonexistent-dir\/cpu_dma_latency/ : /only on Linux/);
  hold.release();
});

Deno.test("currentCpuDmaLatency is undefined for a file it cannot read", () => {
  assert.equal(currentCpuDmaLatency("/nonexistent-dir/cpu_dma_latency"), undefined);
});

// The real device: only where this process may write it (root). The kernel applies the smallest request held
// and drops ours when the file closes.
let writable = false;
try {
  Deno.openSync(CPU_DMA_LATENCY_PATH, { write: true }).close();
  writable = true;
} catch {
  writable = false;
}

Deno.test({
  name: "holdCpuDmaLatency(0) sets the kernel's limit to 0 while held and restores it on release",
  ignore: !LINUX || !writable,
  fn: () => {
    const before = currentCpuDmaLatency();
    assert.notEqual(before, undefined);
    const hold = holdCpuDmaLatency(0);
    try {
      assert.equal(hold.held, true);
      assert.equal(currentCpuDmaLatency(), 0);
    } finally {
      hold.release();
    }
    assert.equal(currentCpuDmaLatency(), before);
  },
});
