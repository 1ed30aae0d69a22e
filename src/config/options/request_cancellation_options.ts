/** `profile` options of the "Request Cancellation" group: requests cancelled on purpose after they are sent. */
import { MAX_DURATION_SECONDS } from "../../timing/load_limits.ts";
import { optionGroup, PROFILING_PHASE } from "./option_group.ts";

export const REQUEST_CANCELLATION_OPTIONS = optionGroup("Request Cancellation", [
  {
    key: "requestCancellationRate",
    type: "float",
    min: 0,
    max: 100,
    flags: ["--request-cancellation-rate"],
    metavar: "<percent>",
    yaml: [`${PROFILING_PHASE}.cancellation.rate`],
    help: "Cancel this percentage (0-100) of profiling requests, drawn at random (seeded): each is sent in full, " +
      "then disconnected after --request-cancellation-delay. Cancelled requests are errors with code 499.",
  },
  {
    key: "requestCancellationDelay",
    type: "float",
    default: 0,
    min: 0,
    max: MAX_DURATION_SECONDS,
    flags: ["--request-cancellation-delay"],
    requires: [{
      key: "requestCancellationRate",
      why: "delays the cancellations of --request-cancellation-rate, which is not set",
    }],
    metavar: "<seconds>",
    yaml: [`${PROFILING_PHASE}.cancellation.delay`],
    help: "Seconds after a cancelled request is fully sent before disconnecting (0: right after sending).",
  },
]);
