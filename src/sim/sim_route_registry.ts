/**
 * The simulator's routes, one per endpoint type it answers, each registered under the endpoint type's name (the
 * name of its client adapter in `src/endpoints/endpoint_registry.ts`); `tests/sim/route_conformance_test.ts` checks
 * that every client adapter has its route here and that the two understand each other over a real socket.
 */
import { Registry } from "../base/registry.ts";
import type { SimRoute } from "./sim_route.ts";
import { OPENAI_CHAT_ROUTE } from "./routes/openai_chat.ts";
import { OPENAI_COMPLETIONS_ROUTE } from "./routes/openai_completions.ts";

export const SIM_ROUTES: Registry<SimRoute> = new Registry("simulator route", [
  OPENAI_CHAT_ROUTE,
  OPENAI_COMPLETIONS_ROUTE,
]);
