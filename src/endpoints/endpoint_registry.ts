/**
 * The endpoint types infermeter speaks, declared once. Later adapters (responses, messages, embeddings …)
 * register here and pass the shared conformance suite in tests/endpoints/.
 */
import type { EndpointAdapter, EndpointType } from "./endpoint_adapter.ts";
import { CHAT_ADAPTER } from "./chat_adapter.ts";
import { COMPLETIONS_ADAPTER } from "./completions_adapter.ts";

export const ENDPOINT_ADAPTERS: Readonly<Record<EndpointType, EndpointAdapter>> = {
  chat: CHAT_ADAPTER,
  completions: COMPLETIONS_ADAPTER,
};

export function endpointAdapter(type: EndpointType): EndpointAdapter {
  const adapter = ENDPOINT_ADAPTERS[type];
  if (!adapter) {
    throw new RangeError(
      `unknown endpoint type '${type}'; use one of: ${Object.keys(ENDPOINT_ADAPTERS).join(", ")}`,
    );
  }
  return adapter;
}
