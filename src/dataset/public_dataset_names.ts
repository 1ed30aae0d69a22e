/**
 * The names `--public-dataset` accepts (AIPerf 0.13's public datasets), each with where its data comes from, and the
 * names recognised but not read, each with why. A module of its own so the option table lists them without loading
 * any reader.
 */
import { Registry, type RegistryEntry } from "../base/registry.ts";

const AGENT_TRACES = "replays recorded agent traces (full message and tool snapshots with their timing), a format " +
  "infermeter does not read yet; replay such traces with --input-file and --custom-dataset-type multi_turn or " +
  "mooncake_trace instead";

const WEKA = "replays SemiAnalysis Weka agentic-coding traces (hash-id blocks rebuilt into coding prompts, sub-agent " +
  "fan-out), a format infermeter does not read yet; use --input-file with --custom-dataset-type mooncake_trace instead";

/** Readable public datasets, in AIPerf's order. */
export const PUBLIC_DATASET_NAMES = new Registry<RegistryEntry>("public dataset", [
  { name: "sharegpt", description: "ShareGPT conversations (anon8231489123/ShareGPT_Vicuna_unfiltered)." },
  { name: "aimo", description: "NuminaMath-TIR math problems (AI-MO/NuminaMath-TIR, train)." },
  { name: "mmstar", description: "MMStar visual questions with images (Lin-Chen/MMStar, val)." },
  { name: "mmvu", description: "MMVU video questions with choices and video URLs (yale-nlp/MMVU, validation)." },
  {
    name: "vision_arena",
    description: "VisionArena first user message and image (lmarena-ai/VisionArena-Chat, train).",
  },
  {
    name: "llava_onevision",
    description: "LLaVA-OneVision first user message and image (lmms-lab/LLaVA-OneVision-Data, sharegpt4o, train).",
  },
  { name: "aimo_aime", description: "AIME problems (AI-MO/aimo-validation-aime, train)." },
  { name: "aimo_numina_cot", description: "NuminaMath-CoT problems (AI-MO/NuminaMath-CoT, train)." },
  { name: "aimo_numina_1_5", description: "NuminaMath-1.5 problems (AI-MO/NuminaMath-1.5, train)." },
  { name: "spec_bench", description: "Spec-Bench questions, first turn (hemingkx/Spec-Bench question.jsonl)." },
  { name: "spec_al_gsm8k", description: "GSM8K questions (openai/gsm8k, main, test)." },
  { name: "spec_al_math500", description: "MATH-500 problems (HuggingFaceH4/MATH-500, test)." },
  { name: "spec_al_humaneval", description: "HumanEval prompts (openai/openai_humaneval, test)." },
  { name: "spec_al_mbpp", description: "MBPP tasks (google-research-datasets/mbpp, full, test)." },
  { name: "spec_al_mtbench", description: "MT-Bench two-turn prompts (HuggingFaceH4/mt_bench_prompts, train)." },
  { name: "instruct_coder", description: "InstructCoder instructions (likaixin/InstructCoder, train)." },
  { name: "blazedit_5k", description: "Blazedit code edits, ~5k-character files (vdaita/edit_5k_char, train)." },
  { name: "blazedit_10k", description: "Blazedit code edits, ~10k-character files (vdaita/edit_10k_char, train)." },
  { name: "librispeech", description: "LibriSpeech clips to transcribe (openslr/librispeech_asr, clean, test)." },
  { name: "voxpopuli", description: "VoxPopuli English clips to transcribe (facebook/voxpopuli, en, test)." },
  { name: "gigaspeech", description: "GigaSpeech clips to transcribe (speechcolab/gigaspeech, xs, test)." },
  { name: "ami", description: "AMI meeting clips to transcribe (edinburghcstr/ami, ihm, test)." },
  { name: "spgispeech", description: "SPGISpeech earnings-call clips to transcribe (kensho/spgispeech, test, test)." },
], {
  unsupported: {
    exgentic: AGENT_TRACES,
    exgentic_v2: AGENT_TRACES,
    weka_hf: WEKA,
    ...Object.fromEntries(
      [
        "",
        "_no_subagents",
        "_with_subagents",
        "_with_subagents_256k",
        "_with_subagents_060226",
        "_with_subagents_060226_256k",
        "_with_subagents_060526",
        "_with_subagents_060526_256k",
        "_with_subagents_060826",
        "_with_subagents_060826_256k",
        "_061326",
        "_061326_256k",
        "_061526",
        "_061526_256k",
        "_062126",
        "_062126_256k",
      ].map((suffix) => [`semianalysis_cc_traces_weka${suffix}`, WEKA]),
    ),
  },
});
