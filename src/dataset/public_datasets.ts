/**
 * `--public-dataset`: the datasets AIPerf 0.13 names, read only from files already on this machine — infermeter never
 * downloads (its users are often air-gapped).
 *
 * A dataset kept as one file (sharegpt, spec_bench) is looked for, in order:
 * 1. `$INFERMETER_DATASET_DIR/<file>` when that variable is set;
 * 2. `./.cache/aiperf/datasets/<file>`, where AIPerf keeps its downloads (so an AIPerf cache is reused);
 * 3. for a Hugging Face one, the hub cache, `$HF_HUB_CACHE`, else `$HF_HOME/hub`, else `~/.cache/huggingface/hub`:
 *    `datasets--<owner>--<name>/snapshots/<revision>/<file>` (what `hf download` writes).
 *
 * A Hugging Face dataset read through the `datasets` library (all others) is a repository whose data files hold the
 * wanted subset and split (`hf_data_files.ts`): it is looked for in `$INFERMETER_DATASET_DIR/<owner>/<name>/` (a copy
 * made with `hf download --repo-type dataset <owner>/<name> --local-dir …`), then in the hub cache's snapshots
 * (the one `refs/main` names first). When none exists the error names every place and where the data comes from.
 */
import type { Conversation, Dataset } from "./conversation.ts";
import { DatasetError } from "./dataset_error.ts";
import { loadShareGpt, type PublicDatasetContext } from "./sharegpt_loader.ts";
import { loadSpecBench } from "./spec_bench_loader.ts";
import { PUBLIC_DATASET_NAMES } from "./public_dataset_names.ts";
import { resolveDataFiles } from "./hf_data_files.ts";
import { readHfRows } from "./hf_rows.ts";
import type { HfRowReader } from "./hf_reader.ts";
import { instructionResponseReader } from "./hf_instruction_response_reader.ts";
import { conversationReader } from "./hf_conversation_reader.ts";
import { readMtBench } from "./mt_bench_reader.ts";
import { readMmvu } from "./mmvu_reader.ts";
import { asrReader } from "./hf_asr_reader.ts";
import { exgenticReader } from "./exgentic_reader.ts";
import { readWekaRows } from "./weka_hf_reader.ts";

type Env = (name: string) => string | undefined;

/** A dataset kept as one file. */
export interface FilePublicDataset {
  readonly kind: "file";
  readonly name: string;
  /** The Hugging Face dataset repository, `owner/name`, when the file is published there. */
  readonly hfRepo?: string;
  /** Where the file is published, for the "put it here" message. */
  readonly origin: string;
  /** The file name (in the repository and in the local directories). */
  readonly file: string;
  readonly load: (path: string, ctx: PublicDatasetContext) => Promise<Dataset>;
}

/** A split of a Hugging Face dataset repository, read row by row. */
export interface HfPublicDataset {
  readonly kind: "hf";
  readonly name: string;
  readonly hfRepo: string;
  /** The `datasets` config name (AIPerf's `hf_subset`). */
  readonly subset?: string;
  readonly split: string;
  /** AIPerf streams it, and so caps it at the request count or conversation count. */
  readonly streaming: boolean;
  readonly read: HfRowReader;
  /** The revision AIPerf pins: its hub snapshot is preferred to the one `refs/main` names. */
  readonly revision?: string;
  /** The repository is the value of this option (`weka_hf`: `--hf-weka-dataset`), not `hfRepo`. */
  readonly repoOption?: { readonly key: string; readonly flag: string };
}

export type PublicDataset = FilePublicDataset | HfPublicDataset;

const PROBLEM = instructionResponseReader({ promptColumn: "problem" });
const BLAZEDIT_TEMPLATE = "Given a code file, please apply the change requests and generate the new file.\n\n" +
  "Original file:\n```python\n{code}\n```\n\nChange request:\n{change_request}\n\n" +
  'Please generate the new code file in the "New file" section below.';

function hf(
  name: string,
  hfRepo: string,
  split: string,
  read: HfRowReader,
  opts: { subset?: string; streaming?: boolean; revision?: string } = {},
): HfPublicDataset {
  return {
    kind: "hf",
    name,
    hfRepo,
    split,
    read,
    subset: opts.subset,
    streaming: opts.streaming ?? false,
    ...(opts.revision === undefined ? {} : { revision: opts.revision }),
  };
}

/** The SemiAnalysis Weka trace datasets AIPerf 0.13 names, and their repositories. */
const WEKA_REPOS: readonly (readonly [string, string])[] = [
  ["", "cc-traces-weka-no-subagents-051826"],
  ["_no_subagents", "cc-traces-weka-no-subagents-051826"],
  ["_with_subagents", "cc-traces-weka-062126"],
  ["_with_subagents_256k", "cc-traces-weka-062126-256k"],
  ["_with_subagents_060226", "cc-traces-weka-with-subagents-060226"],
  ["_with_subagents_060226_256k", "cc-traces-weka-with-subagents-060226-256k"],
  ["_with_subagents_060526", "cc-traces-weka-with-subagents-060526"],
  ["_with_subagents_060526_256k", "cc-traces-weka-with-subagents-060526-256k"],
  ["_with_subagents_060826", "cc-traces-weka-with-subagents-060826"],
  ["_with_subagents_060826_256k", "cc-traces-weka-with-subagents-060826-256k"],
  ["_061326", "cc-traces-weka-061326"],
  ["_061326_256k", "cc-traces-weka-061326-256k"],
  ["_061526", "cc-traces-weka-061526"],
  ["_061526_256k", "cc-traces-weka-061526-256k"],
  ["_062126", "cc-traces-weka-062126"],
  ["_062126_256k", "cc-traces-weka-062126-256k"],
];

/** Every readable public dataset, with AIPerf 0.13's repository, subset, split and columns. */
export const PUBLIC_DATASETS: readonly PublicDataset[] = [
  hf("exgentic_v2", "Exgentic/agent-llm-traces-v2", "train", exgenticReader(true), {
    streaming: true,
    revision: "4b8ad4ab198438e5a170f9171c19c6a2cf7c1814",
  }),
  hf("exgentic", "Exgentic/agent-llm-traces", "train", exgenticReader(false), {
    streaming: true,
    revision: "70036b93a04e61b0ea2706a68b962f4f26774587",
  }),
  {
    kind: "file",
    name: "sharegpt",
    hfRepo: "anon8231489123/ShareGPT_Vicuna_unfiltered",
    origin: "https://huggingface.co/datasets/anon8231489123/ShareGPT_Vicuna_unfiltered",
    file: "ShareGPT_V3_unfiltered_cleaned_split.json",
    load: loadShareGpt,
  },
  hf("aimo", "AI-MO/NuminaMath-TIR", "train", PROBLEM),
  hf("mmstar", "Lin-Chen/MMStar", "val", instructionResponseReader({ promptColumn: "question", imageColumn: "image" })),
  hf("mmvu", "yale-nlp/MMVU", "validation", readMmvu),
  hf(
    "vision_arena",
    "lmarena-ai/VisionArena-Chat",
    "train",
    conversationReader({ conversationColumn: "conversation", contentKey: "content", imageColumn: "images" }),
    { streaming: true },
  ),
  hf(
    "llava_onevision",
    "lmms-lab/LLaVA-OneVision-Data",
    "train",
    conversationReader({ conversationColumn: "conversations", contentKey: "value", imageColumn: "image" }),
    { subset: "sharegpt4o", streaming: true },
  ),
  hf("aimo_aime", "AI-MO/aimo-validation-aime", "train", PROBLEM),
  hf("aimo_numina_cot", "AI-MO/NuminaMath-CoT", "train", PROBLEM),
  hf("aimo_numina_1_5", "AI-MO/NuminaMath-1.5", "train", PROBLEM),
  {
    kind: "file",
    name: "spec_bench",
    origin: "https://raw.githubusercontent.com/hemingkx/Spec-Bench/fd2c1cd7d2201ef71db4c5f4e455008f017967bf/data/" +
      "spec_bench/question.jsonl (saved as spec_bench.jsonl)",
    file: "spec_bench.jsonl",
    load: loadSpecBench,
  },
  hf("spec_al_gsm8k", "openai/gsm8k", "test", instructionResponseReader({ promptColumn: "question" }), {
    subset: "main",
  }),
  hf("spec_al_math500", "HuggingFaceH4/MATH-500", "test", PROBLEM),
  hf("spec_al_humaneval", "openai/openai_humaneval", "test", instructionResponseReader({ promptColumn: "prompt" })),
  hf("spec_al_mbpp", "google-research-datasets/mbpp", "test", instructionResponseReader({ promptColumn: "text" }), {
    subset: "full",
  }),
  hf("spec_al_mtbench", "HuggingFaceH4/mt_bench_prompts", "train", readMtBench),
  hf("instruct_coder", "likaixin/InstructCoder", "train", instructionResponseReader({ promptColumn: "instruction" })),
  hf(
    "blazedit_5k",
    "vdaita/edit_5k_char",
    "train",
    instructionResponseReader({ promptColumn: "change_request", promptTemplate: BLAZEDIT_TEMPLATE }),
  ),
  hf(
    "blazedit_10k",
    "vdaita/edit_10k_char",
    "train",
    instructionResponseReader({ promptColumn: "change_request", promptTemplate: BLAZEDIT_TEMPLATE }),
  ),
  hf("librispeech", "openslr/librispeech_asr", "test", asrReader("audio"), { subset: "clean", streaming: true }),
  hf("voxpopuli", "facebook/voxpopuli", "test", asrReader("audio"), { subset: "en", streaming: true }),
  hf("gigaspeech", "speechcolab/gigaspeech", "test", asrReader("audio"), { subset: "xs", streaming: true }),
  hf("ami", "edinburghcstr/ami", "test", asrReader("audio"), { subset: "ihm", streaming: true }),
  hf("spgispeech", "kensho/spgispeech", "test", asrReader("audio"), { subset: "test", streaming: true }),
  ...WEKA_REPOS.map(([suffix, repo]) =>
    hf(`semianalysis_cc_traces_weka${suffix}`, `semianalysisai/${repo}`, "train", readWekaRows)
  ),
  {
    ...hf("weka_hf", "", "train", readWekaRows),
    repoOption: { key: "hfWekaDataset", flag: "--hf-weka-dataset" },
  },
];

/** Where a one-file dataset's file may be, in lookup order (`*` stands for any hub snapshot). */
export function candidatePaths(ds: FilePublicDataset, env: Env): string[] {
  const paths: string[] = [];
  const dir = env("INFERMETER_DATASET_DIR");
  if (dir) paths.push(`${dir}/${ds.file}`);
  paths.push(`.cache/aiperf/datasets/${ds.file}`);
  if (ds.hfRepo) paths.push(`${hubRepoDir(ds.hfRepo, env)}/snapshots/*/${ds.file}`);
  return paths;
}

/** Where a Hugging Face dataset's repository copy may be, in lookup order (`*` stands for any hub snapshot). */
export function candidateRepoDirs(ds: Pick<HfPublicDataset, "hfRepo">, env: Env): string[] {
  const dirs: string[] = [];
  const dir = env("INFERMETER_DATASET_DIR");
  if (dir) dirs.push(`${dir}/${ds.hfRepo}`);
  dirs.push(`${hubRepoDir(ds.hfRepo, env)}/snapshots/*`);
  return dirs;
}

function hubRepoDir(repo: string, env: Env): string {
  return `${hubCache(env)}/datasets--${repo.replace("/", "--")}`;
}

function hubCache(env: Env): string {
  const hub = env("HF_HUB_CACHE");
  if (hub) return hub;
  const home = env("HF_HOME");
  if (home) return `${home}/hub`;
  return `${env("HOME") ?? "~"}/.cache/huggingface/hub`;
}

/**
 * The directories a `…/snapshots/*` candidate stands for: the pinned revision first (when given), then the one
 * `refs/main` names, then the others.
 */
export async function expand(path: string, revision?: string): Promise<string[]> {
  if (!path.endsWith("/snapshots/*")) return [path];
  const snapshots = path.slice(0, -2);
  let names: string[] = [];
  try {
    for await (const e of Deno.readDir(snapshots)) if (e.isDirectory || e.isSymlink) names.push(e.name);
  } catch {
    return [];
  }
  const main = await Deno.readTextFile(`${snapshots}/../refs/main`).then((t) => t.trim(), () => undefined);
  names = names.sort().sort((a, b) => Number(b === main) - Number(a === main))
    .sort((a, b) => Number(b === revision) - Number(a === revision));
  return names.map((n) => `${snapshots}/${n}`);
}

async function findFile(ds: FilePublicDataset, env: Env): Promise<string | undefined> {
  for (const path of candidatePaths(ds, env)) {
    const star = path.indexOf("/*/");
    const dirs = star < 0 ? [undefined] : await expand(path.slice(0, star + 2));
    for (const dir of dirs) {
      const candidate = dir === undefined ? path : `${dir}/${path.slice(star + 3)}`;
      if (await isFile(candidate)) return candidate;
    }
  }
  return undefined;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

/**
 * Loads a public dataset from local files.
 * @throws {DatasetError} when the name is unknown or unsupported (saying why), the data is nowhere local (saying
 * where to put it), a data file is malformed, or no row yields a conversation.
 */
export async function loadPublicDataset(
  name: string,
  ctx: PublicDatasetContext & { readonly subset?: string },
  env: Env = (n) => Deno.env.get(n),
): Promise<Dataset> {
  const key = name.toLowerCase().replaceAll("-", "_");
  const ds = PUBLIC_DATASETS.find((d) => d.name === key);
  if (ds === undefined) {
    const reason = PUBLIC_DATASET_NAMES.unsupported()[key];
    throw new DatasetError(
      `--public-dataset ${name}`,
      undefined,
      reason === undefined
        ? `is not a public dataset name; use one of: ${PUBLIC_DATASETS.map((d) => d.name).join(", ")}`
        : `is not supported: it ${reason}`,
    );
  }
  if (ds.kind === "file" && ctx.subset !== undefined) {
    throw new DatasetError(
      `--hf-subset ${ctx.subset}`,
      undefined,
      `applies to Hugging Face datasets, and --public-dataset ${ds.name} is one file (${ds.file}); remove it`,
    );
  }
  if (ds.kind === "file") {
    const path = await findFile(ds, env);
    if (path === undefined) {
      throw new DatasetError(
        `--public-dataset ${name}`,
        undefined,
        `needs ${ds.file} on this machine (infermeter never downloads datasets). Get it from ${ds.origin} and put ` +
          `it at one of: ${candidatePaths(ds, env).map((p) => p.replace("/*/", "/<revision>/")).join(", ")}.`,
      );
    }
    return await ds.load(path, ctx);
  }
  let chosen: HfPublicDataset = ctx.subset === undefined ? ds : { ...ds, subset: ctx.subset };
  if (ds.repoOption !== undefined) {
    const repo = ctx.options?.[ds.repoOption.key];
    if (typeof repo !== "string" || !/^[^/\s]+\/[^/\s]+$/.test(repo)) {
      throw new DatasetError(
        `--public-dataset ${ds.name}`,
        undefined,
        `reads the repository ${ds.repoOption.flag} names; give ${ds.repoOption.flag} <owner>/<name>`,
      );
    }
    chosen = { ...chosen, hfRepo: repo };
  }
  return await loadHfDataset(chosen, ctx, env);
}

async function loadHfDataset(ds: HfPublicDataset, ctx: PublicDatasetContext, env: Env): Promise<Dataset> {
  const what = `${ds.hfRepo} (${ds.subset === undefined ? "" : `subset ${ds.subset}, `}split ${ds.split})`;
  const looked: string[] = [];
  for (const candidate of candidateRepoDirs(ds, env)) {
    const dirs = await expand(candidate, ds.revision);
    for (const dir of dirs) {
      const found = await resolveDataFiles(dir, ds.subset, ds.split);
      if ("missing" in found) {
        if (await isDir(dir)) looked.push(`${dir} ${found.missing}`);
        continue;
      }
      const conversations: Conversation[] = await ds.read(readHfRows(found.files.map((f) => `${dir}/${f}`)), {
        ...ctx,
        name: ds.name,
        where: `${dir} ${what}`,
        limit: ds.streaming ? ctx.limit : undefined,
      });
      if (conversations.length === 0) {
        throw new DatasetError(`${dir}`, undefined, `has no row of ${what} that makes a ${ds.name} request`);
      }
      // The Weka datasets cap their own idle gaps with --trace-idle-gap-cap-seconds (it takes precedence).
      const capped = ds.read === readWekaRows && typeof ctx.options?.traceIdleGapCapSeconds === "number";
      return {
        conversations,
        defaultSampling: "sequential",
        source: "file",
        format: ds.name,
        ...(capped ? { gapsCapped: true } : {}),
      };
    }
  }
  const places = candidateRepoDirs(ds, env).map((p) => p.replace("/*", "/<revision>")).join(", ");
  throw new DatasetError(
    `--public-dataset ${ds.name}`,
    undefined,
    `needs ${what} on this machine (infermeter never downloads datasets). Get it with \`hf download --repo-type ` +
      `dataset ${ds.hfRepo}\` (or \`huggingface-cli download\`) on a connected machine and copy the repository to ` +
      `one of: ${places}.` + (looked.length > 0 ? ` Found but unusable: ${looked.join("; ")}.` : ""),
  );
}

async function isDir(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}
