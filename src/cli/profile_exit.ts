/** How a profile run's end maps to the exit code (the table is `exit_codes.ts`), for every command that runs one. */
import type { ProfileEnd } from "../run/profile_run.ts";
import { EXIT, type ExitCode } from "./exit_codes.ts";

export const PROFILE_EXIT: Readonly<Record<ProfileEnd, ExitCode>> = {
  completed: EXIT.OK,
  all_failed: EXIT.REQUESTS_FAILED,
  threshold_exceeded: EXIT.REQUESTS_FAILED,
  thresholds_failed: EXIT.THRESHOLD_CROSSED,
  results_unwritten: EXIT.RESULTS_UNWRITTEN,
  cancelled: EXIT.INTERRUPTED,
  interrupted_before_start: EXIT.INTERRUPTED,
  unreachable: EXIT.UNREACHABLE,
  server_gone: EXIT.UNREACHABLE,
  shards_lost: EXIT.REQUESTS_FAILED,
  warmup_failed: EXIT.REQUESTS_FAILED,
};
