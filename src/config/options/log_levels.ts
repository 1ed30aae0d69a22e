import type { LogLevel } from "../../ui/logger.ts";

/** Log levels, most verbose first (AIPerf's set). */
export const LOG_LEVELS = [
  "TRACE",
  "DEBUG",
  "INFO",
  "NOTICE",
  "WARNING",
  "SUCCESS",
  "ERROR",
  "CRITICAL",
] as const satisfies readonly LogLevel[];
