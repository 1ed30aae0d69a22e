/**
 * The `coding` prompt corpus (AIPerf's `--prompt-corpus coding`): procedurally generated developer text — Python,
 * TypeScript and Go code, shell sessions, training logs, JSON, tracebacks, SQL, git diffs, CI logs and configs —
 * from templates filled and shuffled with a seeded generator, so the same seed gives the same corpus. Prompts are
 * windows of it, cut to exact lengths like every other corpus.
 */
import type { SeededRandom } from "../base/seeded_random.ts";

const NAMES = ["user", "order", "session", "batch", "token", "model", "request", "cache", "worker", "shard", "event"];
const VERBS = ["load", "parse", "fetch", "update", "validate", "merge", "flush", "encode", "resolve", "schedule"];
const FILES = ["src/server.py", "lib/cache.ts", "cmd/main.go", "app/models.py", "pkg/queue/queue.go", "src/index.ts"];
const ERRORS = ["KeyError", "ValueError", "TimeoutError", "ConnectionResetError", "IndexError", "RuntimeError"];

type Gen = (r: SeededRandom) => string;

const pick = <T>(r: SeededRandom, xs: readonly T[]): T => xs[r.int(xs.length)];
const ident = (r: SeededRandom) => `${pick(r, VERBS)}_${pick(r, NAMES)}`;
const camel = (r: SeededRandom) => {
  const n = pick(r, NAMES);
  return `${pick(r, VERBS)}${n[0].toUpperCase()}${n.slice(1)}`;
};

const GENERATORS: readonly Gen[] = [
  (r) => {
    const f = ident(r);
    const n = pick(r, NAMES);
    return `def ${f}(${n}_id: int, retries: int = ${1 + r.int(5)}) -> dict:\n` +
      `    """${pick(r, VERBS)} the ${n} and return its state."""\n` +
      `    for attempt in range(retries):\n        result = client.get(f"/api/${n}s/{${n}_id}")\n` +
      `        if result.status_code == 200:\n            return result.json()\n` +
      `        time.sleep(${(r.next() * 2).toFixed(2)} * attempt)\n    raise ${pick(r, ERRORS)}(${n}_id)\n`;
  },
  (r) => {
    const f = camel(r);
    return `export async function ${f}(ids: string[]): Promise<Map<string, number>> {\n` +
      `  const out = new Map<string, number>();\n  for (const id of ids) {\n` +
      `    const res = await fetch(\`/v1/${pick(r, NAMES)}/\${id}\`);\n    if (!res.ok) continue;\n` +
      `    out.set(id, (await res.json()).count ?? ${r.int(100)});\n  }\n  return out;\n}\n`;
  },
  (r) => {
    const f = camel(r);
    return `func ${f[0].toUpperCase()}${f.slice(1)}(ctx context.Context, n int) error {\n` +
      `\tfor i := 0; i < n; i++ {\n\t\tif err := ctx.Err(); err != nil {\n\t\t\treturn fmt.Errorf("${f}: %w", err)\n` +
      `\t\t}\n\t\ttime.Sleep(${1 + r.int(50)} * time.Millisecond)\n\t}\n\treturn nil\n}\n`;
  },
  (r) => {
    const lines = [`$ python train.py --lr ${(r.next() / 100).toFixed(5)} --batch-size ${2 ** (4 + r.int(5))}`];
    let loss = 2 + r.next() * 2;
    for (let s = 0; s < 4 + r.int(6); s++) {
      loss *= 0.8 + r.next() * 0.15;
      lines.push(
        `step ${(s + 1) * 100} | loss ${loss.toFixed(4)} | lr ${(r.next() / 1000).toExponential(2)} | ` +
          `${(100 + r.next() * 900).toFixed(1)} samples/s`,
      );
    }
    return lines.join("\n") + "\n";
  },
  (r) =>
    JSON.stringify(
      {
        id: `${pick(r, NAMES)}-${r.int(100000)}`,
        status: pick(r, ["ok", "pending", "failed"]),
        items: Array.from({ length: 1 + r.int(3) }, () => ({ name: pick(r, NAMES), qty: r.int(20) })),
        latency_ms: Number((r.next() * 300).toFixed(2)),
      },
      null,
      2,
    ) + "\n",
  (r) => {
    const file = pick(r, FILES);
    const err = pick(r, ERRORS);
    return `Traceback (most recent call last):\n  File "${file}", line ${10 + r.int(400)}, in ${ident(r)}\n` +
      `    value = registry[${pick(r, NAMES)}_key]\n  File "${pick(r, FILES)}", line ${r.int(200)}, in __getitem__\n` +
      `    raise ${err}(key)\n${err}: '${pick(r, NAMES)}_${r.int(1000)}'\n`;
  },
  (r) => {
    const t = `${pick(r, NAMES)}s`;
    return `SELECT ${t}.id, COUNT(*) AS n, AVG(${t}.latency_ms) AS avg_latency\nFROM ${t}\n` +
      `JOIN ${pick(r, NAMES)}s ON ${pick(r, NAMES)}s.${pick(r, NAMES)}_id = ${t}.id\n` +
      `WHERE ${t}.created_at > NOW() - INTERVAL '${1 + r.int(30)} days'\nGROUP BY ${t}.id\nORDER BY n DESC\n` +
      `LIMIT ${10 * (1 + r.int(10))};\n`;
  },
  (r) => {
    const file = pick(r, FILES);
    const line = r.int(300);
    return `diff --git a/${file} b/${file}\n--- a/${file}\n+++ b/${file}\n@@ -${line},6 +${line},7 @@\n` +
      `     ${ident(r)}(config)\n-    timeout = ${r.int(30)}\n+    timeout = config.get("timeout", ${r.int(60)})\n` +
      `+    log.debug("using timeout %s", timeout)\n     return ${ident(r)}(timeout)\n`;
  },
  (r) =>
    `[${pick(r, ["build", "test", "lint"])}] Run ${
      pick(r, ["npm ci", "go test ./...", "pytest -q", "cargo build"])
    }\n` +
    `${1 + r.int(300)} passed, ${r.int(3)} failed, ${r.int(5)} skipped in ${(r.next() * 90).toFixed(2)}s\n` +
    `##[error]Process completed with exit code ${r.int(2)}.\n`,
  (r) =>
    `server:\n  host: 0.0.0.0\n  port: ${8000 + r.int(1000)}\n  workers: ${1 + r.int(16)}\n${pick(r, NAMES)}:\n` +
    `  ttl_seconds: ${60 * r.int(60)}\n  max_entries: ${1000 * (1 + r.int(100))}\n  backend: ${
      pick(r, ["redis", "memory", "sqlite"])
    }\n`,
];

/** About `chars` characters of coding text, deterministic for the generator's seed. */
export function codingCorpus(rng: SeededRandom, chars = 200_000): string {
  const parts: string[] = [];
  let size = 0;
  while (size < chars) {
    const text = pick(rng, GENERATORS)(rng);
    parts.push(text);
    size += text.length;
  }
  return parts.join("\n");
}
