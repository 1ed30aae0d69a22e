/**
 * Ids from the fast byte-level BPE path (full tables, and chained merges as a run's quick first load builds
 * them) against `@huggingface/tokenizers` on real `tokenizer.json` files, text by text: the whole bundled corpus (cut at paragraphs and into 4,000-character windows), the seed prompts in
 * /work/shared/seeds or `--seeds DIR` when present, and a generated corpus (unicode, emoji, CJK, whitespace runs,
 * digits, code, and the file's added tokens written into the text). Then the promise behind piece boundaries
 * (`encodeWithPieceStarts`, which synthetic prompts rely on): 5,000 windows of the cleaned corpus and of the
 * generated texts, cut at random boundaries, each re-encoded from its text. Exits 1 on any difference.
 *
 *   deno run -A scripts/bench/hf_bpe_parity_bench.ts <tokenizer dir or hub id>...
 */
import { locateTokenizer } from "../../src/tokenizer/load_tokenizer.ts";
import { loadHfTokenizer } from "../../src/tokenizer/hf_tokenizer.ts";
import { DEFAULT_CORPUS } from "../../src/dataset/default_corpus.ts";
import { parityCorpus } from "../../tests/fixtures/tokenizer_parity_corpus.ts";
import { cleanCorpus } from "../../src/dataset/corpus_piece_table.ts";
import type { Tokenizer } from "../../src/tokenizer/tokenizer.ts";

/** Windows between random piece boundaries of `text` whose re-encoded text differs from their ids. */
function windowFailures(tok: Tokenizer, text: string, windows: number, seed: number): number {
  const pieces = tok.encodeWithPieceStarts?.(text);
  if (pieces === undefined) throw new Error(`${tok.name} offers no piece boundaries`);
  const at: number[] = [];
  pieces.boundary.forEach((b, i) => b === 1 && at.push(i));
  if (at.length < 2) throw new Error(`${tok.name} found no boundaries in the text`);
  let s = seed;
  let failures = 0;
  for (let k = 0; k < windows; k++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const a = s % (at.length - 1);
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const b = Math.min(at.length - 1, a + 1 + (s % 300));
    const ids = pieces.ids.slice(at[a], at[b]);
    const again = tok.encode(tok.decode(ids));
    if (again.length !== ids.length || again.some((id, i) => id !== ids[i])) failures++;
  }
  return failures;
}

const args = [...Deno.args];
const seedsAt = args.indexOf("--seeds");
const seedsDir = seedsAt >= 0 ? args.splice(seedsAt, 2)[1] : "/work/shared/seeds";

function seedTexts(): string[] {
  try {
    return [...Deno.readDirSync(seedsDir)].filter((e) => e.isFile).map((e) =>
      Deno.readTextFileSync(`${seedsDir}/${e.name}`)
    );
  } catch {
    return [];
  }
}

let failed = false;
const windowRows: string[] = [];
console.log("| tokenizer | texts | characters | tokens | differing texts (full tables) | differing (chained merges) |");
console.log("| --- | --: | --: | --: | --: | --: |");
for (const spec of args) {
  const path = locateTokenizer(spec, Deno.env.toObject());
  const fast = await loadHfTokenizer(path, { cacheDir: null });
  const quick = await loadHfTokenizer(path, { cacheDir: null, quickStart: true });
  const library = await loadHfTokenizer(path, { forceLibrary: true });
  if (fast.engine === library.engine) throw new Error(`${spec} does not run on the fast path (${fast.engine})`);
  const json = JSON.parse(await Deno.readTextFile(Deno.statSync(path).isDirectory ? `${path}/tokenizer.json` : path));
  const added = (json.added_tokens as { content: string }[]).map((t) => t.content);
  const windows: string[] = [];
  for (let i = 0; i < DEFAULT_CORPUS.length; i += 4000) windows.push(DEFAULT_CORPUS.slice(i, i + 4000));
  const texts = [
    ...DEFAULT_CORPUS.split(/(?<=\n\n)/),
    ...windows,
    ...seedTexts(),
    ...parityCorpus(1, 20_000, added.slice(0, 64)),
  ];
  let chars = 0, tokens = 0;
  const differing = [0, 0];
  for (const text of texts) {
    const expected = library.encode(text);
    chars += text.length;
    tokens += expected.length;
    [fast, quick].forEach((tok, k) => {
      const got = tok.encode(text);
      if (got.length === expected.length && got.every((id, i) => id === expected[i])) return;
      if (differing[k]++ < 3) {
        console.error(
          `${spec} (${k === 0 ? "full" : "chained"}): ${JSON.stringify(text.slice(0, 200))}\n  fast ${
            got.slice(0, 30)
          }\n  lib  ${expected.slice(0, 30)}`,
        );
      }
    });
  }
  if (differing[0] + differing[1] > 0) failed = true;
  console.log(`| ${spec} | ${texts.length} | ${chars} | ${tokens} | ${differing[0]} | ${differing[1]} |`);
  const generated = parityCorpus(2, 2000, []).filter((t) => t.normalize("NFC") === t).join("\n");
  for (const [name, tok] of [["full tables", fast], ["chained merges", quick]] as const) {
    const bad = windowFailures(tok, cleanCorpus(DEFAULT_CORPUS), 2500, 11) + windowFailures(tok, generated, 2500, 12);
    if (bad > 0) failed = true;
    windowRows.push(`| ${spec} | ${name} | 5000 | ${bad} |`);
  }
}
console.log("\n| tokenizer | tables | windows between piece boundaries | re-encoded differently |");
console.log("| --- | --- | --: | --: |");
for (const row of windowRows) console.log(row);
if (failed) Deno.exit(1);
