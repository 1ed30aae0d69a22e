/**
 * The API's documentation pages, rendered from the OpenAPI document on this machine: `/docs` (each route with a
 * "Try it" button that fetches it from this server) and `/redoc` (a reference of routes and response schemas).
 * Self-contained HTML — inline style and script, no CDN, no fonts, no other host — so they work air-gapped.
 */
import type { JsonObject, JsonValue } from "../export/json_export.ts";

const STYLE = `body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#222}
h1{margin-bottom:.2rem}.op{border:1px solid #ccc;border-radius:6px;margin:1rem 0;padding:.6rem 1rem}
.m{display:inline-block;background:#2a7;color:#fff;border-radius:4px;padding:0 .5rem;font-weight:bold;margin-right:.5rem}
code,pre{font-family:ui-monospace,monospace}pre{background:#f5f5f5;padding:.6rem;overflow:auto;max-height:24rem}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:.2rem .5rem;text-align:left;vertical-align:top}
button{margin-top:.4rem}`;

export type DocsStyle = "docs" | "redoc";

export function renderDocsPage(doc: JsonObject, style: DocsStyle): string {
  const info = doc.info as JsonObject;
  const paths = doc.paths as Record<string, JsonObject>;
  const schemas = ((doc.components as JsonObject).schemas ?? {}) as Record<string, JsonObject>;
  const ops: string[] = [];
  let n = 0;
  for (const [path, item] of Object.entries(paths)) {
    const op = item.get as JsonObject;
    const responses = op.responses as Record<string, JsonObject>;
    const rows = Object.entries(responses).map(([code, r]) =>
      `<tr><td>${code}</td><td>${esc(String(r.description))}${responseSchema(r, schemas)}</td></tr>`
    );
    const id = `op${n++}`;
    const hasParam = Array.isArray(op.parameters) && op.parameters.length > 0;
    const tryIt = style === "docs"
      ? (hasParam
        ? `<div><input id="${id}p" placeholder="profile_export_aiperf.json"> <button onclick="tryIt('${id}','${
          esc(path)
        }')">Try it</button></div>`
        : `<div><button onclick="tryIt('${id}','${esc(path)}')">Try it</button></div>`) +
        `<pre id="${id}o" hidden></pre>`
      : "";
    ops.push(
      `<div class="op"><div><span class="m">GET</span><code>${esc(path)}</code> — ${esc(String(op.summary))}</div>` +
        `<p>${esc(String(op.description))}</p><table><tr><th>Status</th><th>Response</th></tr>${
          rows.join("")
        }</table>${tryIt}</div>`,
    );
  }
  const script = style === "docs"
    ? `<script>async function tryIt(id,path){const p=document.getElementById(id+"p");` +
      `if(p)path=path.replace(/\\{[^}]+\\}/,encodeURIComponent(p.value||p.placeholder).replace(/%2F/g,"/"));` +
      `const o=document.getElementById(id+"o");o.hidden=false;o.textContent="…";` +
      `try{const r=await fetch(path);const t=await r.text();let b=t;try{b=JSON.stringify(JSON.parse(t),null,2)}catch{}` +
      `o.textContent=r.status+" "+r.statusText+"\\n\\n"+b.slice(0,20000)}catch(e){o.textContent=String(e)}}</script>`
    : "";
  const title = `${esc(String(info.title))} ${esc(String(info.version))}`;
  const other = style === "docs" ? `<a href="/redoc">Reference</a>` : `<a href="/docs">Interactive docs</a>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><style>${STYLE}</style></head>` +
    `<body><h1>${title}</h1><p>${
      esc(String(info.description))
    } <a href="/openapi.json">openapi.json</a> · ${other}</p>` +
    ops.join("") + script + `</body></html>`;
}

function responseSchema(r: JsonObject, schemas: Record<string, JsonObject>): string {
  const content = r.content as Record<string, JsonObject> | undefined;
  if (content === undefined) return "";
  const [type, media] = Object.entries(content)[0];
  const ref = (media.schema as JsonObject | undefined)?.$ref;
  if (typeof ref !== "string") return ` <code>${esc(type)}</code>`;
  const name = ref.split("/").pop()!;
  return ` <code>${esc(name)}</code>${fieldsTable(schemas[name])}`;
}

function fieldsTable(schema: JsonObject | undefined): string {
  const props = schema?.properties as Record<string, JsonObject> | undefined;
  if (props === undefined) return "";
  const rows = Object.entries(props).map(([k, v]) =>
    `<tr><td><code>${esc(k)}</code></td><td>${esc(typeText(v))}</td><td>${esc(String(v.description ?? ""))}</td></tr>`
  );
  return `<table>${rows.join("")}</table>`;
}

function typeText(v: JsonObject): string {
  const t: JsonValue | undefined = v.type ?? (typeof v.$ref === "string" ? v.$ref.split("/").pop() : undefined);
  return Array.isArray(t) ? t.join(" | ") : String(t ?? "");
}

function esc(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(
    /'/g,
    "&#39;",
  );
}
