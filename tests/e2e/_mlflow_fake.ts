/**
 * The part of MLflow's tracking REST API a run upload uses, in memory on loopback, strict about what it accepts
 * (unknown calls, missing fields and `log-batch` over MLflow's limits are 400s): experiments by name, runs, batches
 * of metrics, parameters and tags, artifacts through the artifact proxy, and run status. `failWith` makes every call
 * answer that status instead.
 */
export interface FakeRun {
  readonly id: string;
  readonly experimentId: string;
  readonly name: string;
  status: string;
  readonly tags: Map<string, string>;
  readonly params: Map<string, string>;
  /** Every metric logged, in order. */
  readonly metrics: { key: string; value: number; step: number; timestamp: number }[];
  readonly artifacts: Map<string, Uint8Array>;
}

export interface FakeMlflow extends AsyncDisposable {
  readonly url: string;
  readonly runs: FakeRun[];
  readonly experiments: Map<string, string>;
  /** Every call, as `METHOD path`. */
  readonly calls: string[];
  readonly authorizations: Set<string>;
  failWith?: number;
}

export function fakeMlflow(): FakeMlflow {
  const experiments = new Map<string, string>([["Default", "0"]]);
  const runs: FakeRun[] = [];
  const calls: string[] = [];
  const authorizations = new Set<string>();
  const bad = (message: string) => Response.json({ error_code: "INVALID_PARAMETER_VALUE", message }, { status: 400 });
  const missing = (message: string) =>
    Response.json({ error_code: "RESOURCE_DOES_NOT_EXIST", message }, { status: 404 });
  const runOf = (id: unknown) => runs.find((r) => r.id === id);
  const state: FakeMlflow = {
    url: "",
    runs,
    experiments,
    calls,
    authorizations,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const url = new URL(req.url);
    calls.push(`${req.method} ${url.pathname}`);
    const auth = req.headers.get("authorization");
    if (auth !== null) authorizations.add(auth);
    if (state.failWith !== undefined) return new Response("unavailable", { status: state.failWith });
    const art = /^\/api\/2\.0\/mlflow-artifacts\/artifacts\/(\d+)\/([0-9a-f]+)\/artifacts\/(.+)$/.exec(url.pathname);
    if (req.method === "PUT" && art !== null) {
      const run = runOf(art[2]);
      if (run === undefined || run.experimentId !== art[1]) return missing("no such run");
      run.artifacts.set(decodeURIComponent(art[3]), new Uint8Array(await req.arrayBuffer()));
      return Response.json({});
    }
    if (req.method === "GET" && url.pathname === "/api/2.0/mlflow/experiments/get-by-name") {
      const name = url.searchParams.get("experiment_name") ?? "";
      const id = experiments.get(name);
      return id === undefined
        ? missing(`Could not find experiment with name '${name}'`)
        : Response.json({ experiment: { experiment_id: id, name, lifecycle_stage: "active" } });
    }
    if (req.method === "GET" && url.pathname === "/api/2.0/mlflow/runs/get") {
      const run = runOf(url.searchParams.get("run_id"));
      return run === undefined ? missing("run not found") : Response.json({ run: { info: { run_id: run.id } } });
    }
    if (req.method !== "POST") return bad(`unexpected ${req.method} ${url.pathname}`);
    if (req.headers.get("content-type") !== "application/json") return bad("expected application/json");
    const body = await req.json();
    switch (url.pathname) {
      case "/api/2.0/mlflow/experiments/create": {
        if (typeof body.name !== "string" || experiments.has(body.name)) return bad("bad or existing name");
        const id = String(experiments.size);
        experiments.set(body.name, id);
        return Response.json({ experiment_id: id });
      }
      case "/api/2.0/mlflow/runs/create": {
        if (![...experiments.values()].includes(body.experiment_id)) return missing("no experiment");
        const id = crypto.randomUUID().replaceAll("-", "");
        const run: FakeRun = {
          id,
          experimentId: body.experiment_id,
          name: body.run_name,
          status: "RUNNING",
          tags: new Map((body.tags ?? []).map((t: { key: string; value: string }) => [t.key, t.value])),
          params: new Map(),
          metrics: [],
          artifacts: new Map(),
        };
        runs.push(run);
        return Response.json({
          run: {
            info: {
              run_id: id,
              run_name: run.name,
              experiment_id: run.experimentId,
              artifact_uri: `mlflow-artifacts:/${run.experimentId}/${id}/artifacts`,
            },
          },
        });
      }
      case "/api/2.0/mlflow/runs/log-batch": {
        const run = runOf(body.run_id);
        if (run === undefined) return missing("no run");
        const metrics = body.metrics ?? [];
        const params = body.params ?? [];
        const tags = body.tags ?? [];
        if (metrics.length > 1000 || params.length > 100 || tags.length > 100) return bad("over a limit");
        if (metrics.length + params.length + tags.length > 1000) return bad("over 1000 entities");
        for (const m of metrics) {
          if (typeof m.key !== "string" || typeof m.value !== "number" || typeof m.timestamp !== "number") {
            return bad(`bad metric ${JSON.stringify(m)}`);
          }
          run.metrics.push({ key: m.key, value: m.value, step: m.step ?? 0, timestamp: m.timestamp });
        }
        for (const p of params) {
          if (run.params.has(p.key) && run.params.get(p.key) !== p.value) return bad(`param ${p.key} changed`);
          if (String(p.value).length > 6000) return bad("param too long");
          run.params.set(p.key, p.value);
        }
        for (const t of tags) run.tags.set(t.key, t.value);
        return Response.json({});
      }
      case "/api/2.0/mlflow/runs/update": {
        const run = runOf(body.run_id);
        if (run === undefined) return missing("no run");
        run.status = body.status;
        return Response.json({ run_info: { run_id: run.id, status: run.status } });
      }
      default:
        return bad(`unexpected POST ${url.pathname}`);
    }
  });
  return Object.assign(state, { url: `http://127.0.0.1:${server.addr.port}` });
}
