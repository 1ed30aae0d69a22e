/**
 * The simulator's routes, one per endpoint type it answers, each registered under the endpoint type's name (the
 * name of its client adapter in `src/endpoints/endpoint_registry.ts`); `tests/sim/route_conformance_test.ts` checks
 * that every client adapter has its route here and that the two understand each other over a real socket.
 */
import { Registry } from "../base/registry.ts";
import type { SimRoute } from "./sim_route.ts";
import { OPENAI_CHAT_ROUTE } from "./routes/openai_chat.ts";
import { OPENAI_COMPLETIONS_ROUTE } from "./routes/openai_completions.ts";
import { OPENAI_EMBEDDINGS_ROUTE } from "./routes/openai_embeddings.ts";
import { COHERE_RERANK_ROUTE, NIM_RANKING_ROUTE, TEI_RERANK_ROUTE } from "./routes/rerank_routes.ts";
import { TGI_GENERATE_ROUTE } from "./routes/tgi_generate.ts";
import { ANTHROPIC_MESSAGES_ROUTE } from "./routes/anthropic_messages.ts";
import { OPENAI_RESPONSES_ROUTE } from "./routes/openai_responses.ts";
import { OPENAI_IMAGES_ROUTE } from "./routes/openai_images.ts";
import { OPENAI_IMAGE_EDIT_ROUTE } from "./routes/openai_image_edit.ts";
import { OPENAI_VIDEOS_ROUTE } from "./routes/openai_videos.ts";
import { OPENAI_AUDIO_TRANSCRIPTION_ROUTE } from "./routes/openai_audio_transcription.ts";
import { NIM_IMAGE_RETRIEVAL_ROUTE } from "./routes/nim_image_retrieval.ts";
import { SOLIDO_RAG_ROUTE } from "./routes/solido_rag.ts";

export const SIM_ROUTES: Registry<SimRoute> = new Registry("simulator route", [
  OPENAI_CHAT_ROUTE,
  OPENAI_RESPONSES_ROUTE,
  OPENAI_COMPLETIONS_ROUTE,
  OPENAI_EMBEDDINGS_ROUTE,
  NIM_RANKING_ROUTE,
  TEI_RERANK_ROUTE,
  COHERE_RERANK_ROUTE,
  TGI_GENERATE_ROUTE,
  ANTHROPIC_MESSAGES_ROUTE,
  OPENAI_IMAGES_ROUTE,
  OPENAI_IMAGE_EDIT_ROUTE,
  OPENAI_VIDEOS_ROUTE,
  OPENAI_AUDIO_TRANSCRIPTION_ROUTE,
  NIM_IMAGE_RETRIEVAL_ROUTE,
  SOLIDO_RAG_ROUTE,
]);

/** The route answering an endpoint type: the one named after it, else the one that lists it in `servesTypes`. */
export function routeForType(routes: Registry<SimRoute>, type: string): SimRoute | undefined {
  return routes.find(type) ?? routes.entries().find((r) => r.servesTypes?.includes(type));
}
