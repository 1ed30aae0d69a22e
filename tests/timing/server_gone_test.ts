import { deepStrictEqual, match } from "node:assert/strict";
import { ServerGone } from "../../src/timing/server_gone.ts";

Deno.test("ServerGone trips once enough connect failures in a row span long enough, and says so once", () => {
  const gone = new ServerGone({ atLeast: 3, forMs: 1000 });
  deepStrictEqual(gone.observe(true, 0, "http://x"), undefined);
  deepStrictEqual(gone.observe(true, 500, "http://x"), undefined);
  deepStrictEqual(gone.observe(true, 900, "http://x"), undefined, "three, but under a second");
  const reason = gone.observe(true, 1000, "http://x");
  match(reason!, /^the server went away: the last 4 requests could not connect to http:\/\/x for 1\.0 s/);
  deepStrictEqual(gone.observe(true, 1100, "http://x"), undefined, "said once");
  deepStrictEqual(gone.tripped, reason);
});

Deno.test("ServerGone starts counting again at any other outcome: a server that restarts quickly is waited for", () => {
  const gone = new ServerGone({ atLeast: 3, forMs: 1000 });
  for (const t of [0, 400, 800]) gone.observe(true, t, "x");
  gone.observe(false, 900, "x");
  for (const t of [1000, 1500, 1900]) deepStrictEqual(gone.observe(true, t, "x"), undefined);
  deepStrictEqual(gone.tripped, undefined);
  match(gone.observe(true, 2000, "x")!, /the last 4 requests/);
});
