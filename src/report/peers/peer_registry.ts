/**
 * The peer tools whose metric definitions infermeter can apply to its own records (`--peer-metrics`, `peers`).
 * Adding one: a `<tool>_peer.ts` with its `PeerDefinition` (facts cited from the tool's source) and one line here.
 */
import { Registry } from "../../base/registry.ts";
import { GENAI_PERF_PEER } from "./genai_perf_peer.ts";
import { GUIDELLM_PEER } from "./guidellm_peer.ts";
import { LLMPERF_PEER } from "./llmperf_peer.ts";
import type { PeerDefinition } from "./peer_definition.ts";
import { SGLANG_PEER } from "./sglang_peer.ts";
import { VLLM_PEER } from "./vllm_peer.ts";

export const PEERS: Registry<PeerDefinition> = new Registry<PeerDefinition>("peer tool", [
  VLLM_PEER,
  SGLANG_PEER,
  GUIDELLM_PEER,
  LLMPERF_PEER,
  GENAI_PERF_PEER,
]);

/**
 * The peers a user asked for: names from `--peer-metrics a,b` (`all` for every one), in registry order, each once.
 * @throws {RegistryLookupError} for an unknown name, naming the choices.
 */
export function selectPeers(names: readonly string[]): PeerDefinition[] {
  const wanted = names.flatMap((n) => n.split(",")).map((n) => n.trim().toLowerCase()).filter((n) => n !== "");
  if (wanted.includes("all")) return [...PEERS.entries()];
  for (const n of wanted) PEERS.get(n);
  return PEERS.entries().filter((p) => wanted.includes(p.name));
}
