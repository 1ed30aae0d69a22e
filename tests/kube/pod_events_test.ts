import assert from "node:assert/strict";
import { RunEvents } from "../../src/kube/pod_events.ts";
import { KubeApiError } from "../../src/kube/kube_client.ts";
import { Logger } from "../../src/ui/logger.ts";

function logger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: new Logger("INFO", { write: (l) => lines.push(l.replace(/^\S+ /, "")) }), lines };
}

const event = (name: string, reason: string, message: string, type = "Warning") => ({
  involvedObject: { kind: name.split("-").length > 2 ? "Pod" : "Job", name },
  reason,
  message,
  type,
});

Deno.test("run events: the run's warnings are said once each, other runs' and normal events not", async () => {
  const { logger: log, lines } = logger();
  let items = [
    event("r1", "FailedCreate", 'pods "r1-0-x" is forbidden: violates PodSecurity "restricted:latest"'),
    event("r1-0-abcde", "FailedScheduling", "0/3 nodes are available: 3 Insufficient cpu."),
    event("r10-0-zzzzz", "FailedScheduling", "another run's"),
    event("r1-1-fghij", "Scheduled", "Successfully assigned", "Normal"),
  ];
  const events = new RunEvents({ get: <T>() => Promise.resolve({ items } as T) }, "ns", "r1", log);
  await events.poll();
  items = [...items, event("r1-1-fghij", "Failed", 'Error: ErrImagePull: "infermeter:9" not found')];
  await events.poll();
  const said = lines.map((l) => l.trim());
  assert.equal(said.length, 3, said.join("\n"));
  assert.match(said[0], /WARNING\s+Job r1: FailedCreate: pods "r1-0-x" is forbidden: violates PodSecurity/);
  assert.match(said[1], /WARNING\s+Pod r1-0-abcde: FailedScheduling: 0\/3 nodes are available/);
  assert.match(said[2], /WARNING\s+Pod r1-1-fghij: Failed: Error: ErrImagePull/);
});

Deno.test("run events: without the right to list events, they are left alone after the first try", async () => {
  const { logger: log, lines } = logger();
  let calls = 0;
  const events = new RunEvents(
    {
      get: () => (calls++, Promise.reject(new KubeApiError(403, "Forbidden", "forbidden"))),
    },
    "ns",
    "r1",
    log,
  );
  await events.poll();
  await events.poll();
  assert.equal(calls, 1);
  assert.deepEqual(lines, []);
});
