/**
 * A model's own chat template (`--apply-chat-template`), so the ISL counts what the server tokenizes: role headers,
 * BOS and the generation prompt included, as `tokenizer.apply_chat_template(messages, add_generation_prompt=True)`
 * renders it for AIPerf and for vLLM.
 *
 * Where the template is read from, first found:
 * - `--tokenizer <dir>` (or the directory of `--tokenizer <dir>/tokenizer.json`): `chat_template.jinja`, else
 *   `tokenizer_config.json`'s `chat_template` (a string, or a list of named templates: `default` is used);
 * - `--tokenizer <org/name>` (or the model name): the Hugging Face cache, `$HF_HUB_CACHE` or `$HF_HOME/hub` or
 *   `~/.cache/huggingface/hub`, snapshot of `refs/main` (else the newest), the same files.
 * `bos_token` / `eos_token` come from `tokenizer_config.json` (strings or `{content}` objects). Rendering uses
 * @huggingface/jinja, loaded only when the option is given. infermeter never downloads.
 */

export interface ChatMessage {
  readonly role: string;
  readonly content: string;
}

export interface ChatTemplate {
  /** Where the template was read from, for the log. */
  readonly source: string;
  /** The prompt text the server tokenizes for these messages, generation prompt included. */
  render(messages: readonly ChatMessage[]): string;
}

type JsonObject = Record<string, unknown>;

async function readText(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch {
    return undefined;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}

function tokenText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "object" && value !== null && typeof (value as JsonObject).content === "string") {
    return (value as JsonObject).content as string;
  }
  return "";
}

function homeCache(env: (name: string) => string | undefined): string | undefined {
  const hub = env("HF_HUB_CACHE");
  if (hub) return hub;
  const home = env("HF_HOME");
  if (home) return `${home}/hub`;
  const user = env("HOME");
  return user ? `${user}/.cache/huggingface/hub` : undefined;
}

/** The snapshot directory of `org/name` in the Hugging Face cache, or undefined. */
async function cachedSnapshot(model: string, env: (name: string) => string | undefined): Promise<string | undefined> {
  const cache = homeCache(env);
  if (cache === undefined || !/^[\w.-]+\/[\w.-]+$/.test(model)) return undefined;
  const repo = `${cache}/models--${model.replace("/", "--")}`;
  const ref = (await readText(`${repo}/refs/main`))?.trim();
  if (ref && await isDirectory(`${repo}/snapshots/${ref}`)) return `${repo}/snapshots/${ref}`;
  let newest: { path: string; mtime: number } | undefined;
  try {
    for await (const entry of Deno.readDir(`${repo}/snapshots`)) {
      const path = `${repo}/snapshots/${entry.name}`;
      const mtime = (await Deno.stat(path)).mtime?.getTime() ?? 0;
      if (newest === undefined || mtime > newest.mtime) newest = { path, mtime };
    }
  } catch {
    return undefined;
  }
  return newest?.path;
}

/**
 * @param spec `--tokenizer` (a directory, a `tokenizer.json` path, or an `org/name` id)
 * @param model the first model name, tried as an `org/name` id when `spec` finds nothing
 * @throws {Error} naming where it looked when no template is found, or when the template does not parse.
 */
export async function loadChatTemplate(
  spec: string,
  model: string | undefined,
  env: (name: string) => string | undefined = (name) => Deno.env.get(name),
): Promise<ChatTemplate> {
  const candidates: string[] = [];
  const local = spec.endsWith(".json") ? spec.slice(0, Math.max(0, spec.lastIndexOf("/"))) || "." : spec;
  if (await isDirectory(local)) candidates.push(local);
  for (const id of [spec, model]) {
    if (id === undefined) continue;
    const snapshot = await cachedSnapshot(id, env);
    if (snapshot !== undefined) candidates.push(snapshot);
  }
  for (const dir of candidates) {
    const configText = await readText(`${dir}/tokenizer_config.json`);
    let config: JsonObject = {};
    if (configText !== undefined) {
      try {
        config = JSON.parse(configText) as JsonObject;
      } catch (err) {
        throw new Error(`${dir}/tokenizer_config.json is not JSON: ${(err as Error).message}`);
      }
    }
    let template = await readText(`${dir}/chat_template.jinja`);
    let source = `${dir}/chat_template.jinja`;
    if (template === undefined) {
      const t = config.chat_template;
      source = `${dir}/tokenizer_config.json`;
      if (typeof t === "string") template = t;
      else if (Array.isArray(t)) {
        const named = t.find((x) => (x as JsonObject)?.name === "default") ?? t[0];
        if (typeof (named as JsonObject)?.template === "string") template = (named as JsonObject).template as string;
      }
    }
    if (template === undefined) continue;
    const { Template } = await import("@huggingface/jinja");
    let compiled: InstanceType<typeof Template>;
    try {
      compiled = new Template(template);
    } catch (err) {
      throw new Error(`the chat template in ${source} does not parse: ${(err as Error).message}`);
    }
    const bos = tokenText(config.bos_token);
    const eos = tokenText(config.eos_token);
    return {
      source,
      render: (messages) =>
        compiled.render({
          messages: messages.map((m) => ({ role: m.role, content: m.content })),
          add_generation_prompt: true,
          bos_token: bos,
          eos_token: eos,
        }),
    };
  }
  const looked = candidates.length > 0 ? candidates.join(", ") : `--tokenizer ${spec} and the Hugging Face cache`;
  throw new Error(
    `--apply-chat-template: no chat template found in ${looked}; pass --tokenizer <model dir> holding ` +
      "tokenizer_config.json (with chat_template) or chat_template.jinja.",
  );
}
