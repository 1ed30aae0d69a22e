/**
 * Whether a command's arguments ask for its help. Kept apart from the argument reader, with no imports, so the command
 * table at the entry (src/cli/main_cli.ts) can ask before the command's modules are loaded.
 */
/** True when the arguments ask for help (`-h`/`--help` before any `--`). */
export function isHelpRequest(argv: readonly string[]): boolean {
  for (const arg of argv) {
    if (arg === "--") return false;
    if (arg === "-h" || arg === "--help" || arg === "--help-all") return true;
  }
  return false;
}
