/**
 * Lets AIPerf's `--tokenizer builtin` (tiktoken's o200k_base) work offline.
 *
 * tiktoken downloads `o200k_base.tiktoken` on first use unless `TIKTOKEN_CACHE_DIR` holds it under the SHA-1 of
 * its URL. The same rank table ships in the js-tiktoken npm package that infermeter's builtin tokenizer already
 * uses (lines `"<tag> <first rank> <b64 token> <b64 token> …"`); rewritten as tiktoken's `"<b64 token> <rank>"`
 * lines it is byte-identical to the published file, which tiktoken checks against the SHA-256 it pins.
 * Nothing is downloaded: the file is derived from a package in the repo's import map.
 */

const O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken";
/** The SHA-256 tiktoken pins for o200k_base.tiktoken (tiktoken_ext/openai_public.py). */
const O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d";

async function hex(algorithm: "SHA-1" | "SHA-256", bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest(algorithm, bytes as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The tiktoken file text from js-tiktoken's rank data. */
export function toTiktokenFile(bpeRanks: string): string {
  const out: string[] = [];
  for (const line of bpeRanks.split("\n")) {
    if (line === "") continue;
    const parts = line.split(" ");
    const first = Number(parts[1]);
    for (let i = 2; i < parts.length; i++) out.push(`${parts[i]} ${first + i - 2}\n`);
  }
  return out.join("");
}

/**
 * Makes sure `dir` holds o200k_base for tiktoken; returns the directory to pass as `TIKTOKEN_CACHE_DIR`.
 * Throws when the derived file does not match tiktoken's pinned hash (then tiktoken would try the network).
 */
export async function ensureTiktokenCache(dir: string): Promise<string> {
  const key = await hex("SHA-1", new TextEncoder().encode(O200K_URL));
  const path = `${dir}/${key}`;
  try {
    if (await hex("SHA-256", await Deno.readFile(path)) === O200K_SHA256) return dir;
  } catch {
    // not there yet
  }
  const { default: data } = await import("js-tiktoken/ranks/o200k_base");
  const bytes = new TextEncoder().encode(toTiktokenFile(data.bpe_ranks));
  const sha = await hex("SHA-256", bytes);
  if (sha !== O200K_SHA256) {
    throw new Error(`o200k_base derived from js-tiktoken has SHA-256 ${sha}, not tiktoken's ${O200K_SHA256}.`);
  }
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeFile(`${path}.tmp`, bytes);
  await Deno.rename(`${path}.tmp`, path);
  return dir;
}
