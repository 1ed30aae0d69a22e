/**
 * Writes a tiny Llama-architecture GGUF with random weights (2 layers, 64 wide, a byte-level SentencePiece vocabulary
 * of 259 tokens): enough for llama.cpp's `llama-server` to load and generate from, in milliseconds, on any CPU. The
 * text it writes is noise; its timings are real.
 *
 *   deno run -A scripts/llama_server/tiny_gguf.ts OUT.gguf [--seed 1]
 *
 * GGUF v3 as llama.cpp reads it (`ggml/include/gguf.h`): header, key/value pairs, tensor infos, data aligned to 32.
 */
const EMBD = 64;
const LAYERS = 2;
const HEADS = 4;
const FF = 128;
const CTX = 2048;

const out = Deno.args[0];
if (out === undefined) throw new TypeError("give the output file: tiny_gguf.ts OUT.gguf");
const seedAt = Deno.args.indexOf("--seed");
let state = seedAt >= 0 ? Number(Deno.args[seedAt + 1]) : 1;
/** xorshift32 in [-1, 1). */
function random(): number {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return (state >>> 0) / 2 ** 31 - 1;
}

const chunks: Uint8Array[] = [];
const enc = new TextEncoder();
function bytes(n: number, fill: (v: DataView) => void): void {
  const b = new Uint8Array(n);
  fill(new DataView(b.buffer));
  chunks.push(b);
}
const u32 = (x: number) => bytes(4, (v) => v.setUint32(0, x, true));
const u64 = (x: number) => bytes(8, (v) => v.setBigUint64(0, BigInt(x), true));
const i32 = (x: number) => bytes(4, (v) => v.setInt32(0, x, true));
const f32 = (x: number) => bytes(4, (v) => v.setFloat32(0, x, true));
function str(s: string): void {
  const b = enc.encode(s);
  u64(b.length);
  chunks.push(b);
}

const T = { UINT32: 4, INT32: 5, FLOAT32: 6, BOOL: 7, STRING: 8, ARRAY: 9 } as const;
type Kv = readonly [string, "u32" | "f32" | "str" | "bool" | "strs" | "f32s" | "i32s", unknown];

const tokens = [
  "<unk>",
  "<s>",
  "</s>",
  ...Array.from({ length: 256 }, (_, i) => `<0x${i.toString(16).toUpperCase().padStart(2, "0")}>`),
];
const kvs: Kv[] = [
  ["general.architecture", "str", "llama"],
  ["general.name", "str", "infermeter-tiny-random"],
  ["llama.context_length", "u32", CTX],
  ["llama.embedding_length", "u32", EMBD],
  ["llama.block_count", "u32", LAYERS],
  ["llama.feed_forward_length", "u32", FF],
  ["llama.attention.head_count", "u32", HEADS],
  ["llama.attention.head_count_kv", "u32", HEADS],
  ["llama.rope.dimension_count", "u32", EMBD / HEADS],
  ["llama.attention.layer_norm_rms_epsilon", "f32", 1e-5],
  ["general.file_type", "u32", 0],
  ["tokenizer.ggml.model", "str", "llama"],
  ["tokenizer.ggml.tokens", "strs", tokens],
  ["tokenizer.ggml.scores", "f32s", tokens.map(() => 0)],
  ["tokenizer.ggml.token_type", "i32s", tokens.map((_, i) => (i === 0 ? 2 : i < 3 ? 3 : 6))],
  ["tokenizer.ggml.bos_token_id", "u32", 1],
  ["tokenizer.ggml.eos_token_id", "u32", 2],
  ["tokenizer.ggml.unknown_token_id", "u32", 0],
  ["tokenizer.ggml.add_bos_token", "bool", true],
];

const tensors: [string, number[]][] = [["token_embd.weight", [EMBD, tokens.length]]];
for (let l = 0; l < LAYERS; l++) {
  const p = `blk.${l}.`;
  tensors.push(
    [`${p}attn_norm.weight`, [EMBD]],
    [`${p}attn_q.weight`, [EMBD, EMBD]],
    [`${p}attn_k.weight`, [EMBD, EMBD]],
    [`${p}attn_v.weight`, [EMBD, EMBD]],
    [`${p}attn_output.weight`, [EMBD, EMBD]],
    [`${p}ffn_norm.weight`, [EMBD]],
    [`${p}ffn_gate.weight`, [EMBD, FF]],
    [`${p}ffn_up.weight`, [EMBD, FF]],
    [`${p}ffn_down.weight`, [FF, EMBD]],
  );
}
tensors.push(["output_norm.weight", [EMBD]], ["output.weight", [EMBD, tokens.length]]);

// Header.
chunks.push(enc.encode("GGUF"));
u32(3);
u64(tensors.length);
u64(kvs.length);
for (const [key, kind, value] of kvs) {
  str(key);
  switch (kind) {
    case "u32":
      u32(T.UINT32), u32(value as number);
      break;
    case "f32":
      u32(T.FLOAT32), f32(value as number);
      break;
    case "bool":
      u32(T.BOOL), bytes(1, (v) => v.setUint8(0, value ? 1 : 0));
      break;
    case "str":
      u32(T.STRING), str(value as string);
      break;
    case "strs":
      u32(T.ARRAY), u32(T.STRING), u64((value as string[]).length), (value as string[]).forEach(str);
      break;
    case "f32s":
      u32(T.ARRAY), u32(T.FLOAT32), u64((value as number[]).length), (value as number[]).forEach(f32);
      break;
    case "i32s":
      u32(T.ARRAY), u32(T.INT32), u64((value as number[]).length), (value as number[]).forEach(i32);
      break;
  }
}
const ALIGN = 32;
let offset = 0;
const sizes: number[] = [];
for (const [name, dims] of tensors) {
  str(name);
  u32(dims.length);
  for (const d of dims) u64(d);
  u32(0); // F32
  u64(offset);
  const size = dims.reduce((a, b) => a * b, 1) * 4;
  sizes.push(size);
  offset += Math.ceil(size / ALIGN) * ALIGN;
}
let headerLength = chunks.reduce((a, c) => a + c.length, 0);
chunks.push(new Uint8Array((ALIGN - (headerLength % ALIGN)) % ALIGN));
headerLength = 0;
tensors.forEach(([name, dims], i) => {
  const n = dims.reduce((a, b) => a * b, 1);
  const data = new Float32Array(Math.ceil(sizes[i] / ALIGN) * ALIGN / 4);
  const norm = name.endsWith("norm.weight");
  for (let j = 0; j < n; j++) data[j] = norm ? 1 : random() * 0.08;
  chunks.push(new Uint8Array(data.buffer));
});
const file = await Deno.open(out, { write: true, create: true, truncate: true });
for (const c of chunks) {
  let written = 0;
  while (written < c.length) written += await file.write(c.subarray(written));
}
file.close();
console.error(`wrote ${out} (${tensors.length} tensors, ${tokens.length} tokens)`);
