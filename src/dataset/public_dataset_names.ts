/**
 * The names `--public-dataset` accepts (AIPerf 0.13's public datasets), each with where its data comes from, and the
 * names recognised but not read, each with why. A module of its own so the option table lists them without loading
 * any reader.
 */
import { Registry, type RegistryEntry } from "../base/registry.ts";

/** A public dataset name; `reads`: the format options its reader takes (the agent-trace options). */
export interface PublicDatasetName extends RegistryEntry {
  readonly reads?: readonly string[];
}

/** The agent-trace options (`weka_trace_loader.ts`) the Weka datasets read, with the synthesis caps. */
const AGENT_TRACE_KEYS = [
  "useThinkTimeOnly",
  "traceIdleGapCapSeconds",
  "maxContextLength",
  "synthesisMaxIsl",
  "synthesisMaxOsl",
];

const WEKA_DATES: readonly (readonly [string, string])[] = [
  ["", "no sub-agents, 051826"],
  ["_no_subagents", "no sub-agents, 051826"],
  ["_with_subagents", "with sub-agents, 062126"],
  ["_with_subagents_256k", "with sub-agents, 062126, 256k context"],
  ["_with_subagents_060226", "with sub-agents, 060226"],
  ["_with_subagents_060226_256k", "with sub-agents, 060226, 256k context"],
  ["_with_subagents_060526", "with sub-agents, 060526"],
  ["_with_subagents_060526_256k", "with sub-agents, 060526, 256k context"],
  ["_with_subagents_060826", "with sub-agents, 060826"],
  ["_with_subagents_060826_256k", "with sub-agents, 060826, 256k context"],
  ["_061326", "061326"],
  ["_061326_256k", "061326, 256k context"],
  ["_061526", "061526"],
  ["_061526_256k", "061526, 256k context"],
  ["_062126", "062126"],
  ["_062126_256k", "062126, 256k context"],
];

/** Readable public datasets, in AIPerf's order. */
export const PUBLIC_DATASET_NAMES = new Registry<PublicDatasetName>("public dataset", [
  {
    name: "exgentic_v2",
    description: "Exgentic v2 agent LLM traces, recorded requests with their timing (Exgentic/agent-llm-traces-v2).",
  },
  {
    name: "exgentic",
    description: "Exgentic agent LLM traces, recorded requests with their timing (Exgentic/agent-llm-traces).",
  },
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
  ...WEKA_DATES.map(([suffix, what]): PublicDatasetName => ({
    name: `semianalysis_cc_traces_weka${suffix}`,
    description: `SemiAnalysis Weka agentic-coding traces (${what}; semianalysisai/cc-traces-weka-*).`,
    reads: AGENT_TRACE_KEYS,
  })),
  {
    name: "weka_hf",
    description: "Any Weka trace dataset on the hub, named by --hf-weka-dataset.",
    reads: AGENT_TRACE_KEYS,
  },
]);
