/** The product version, kept in one place (deno.json carries the same number for packaging). */
export const VERSION = "0.1.0";
export const USER_AGENT = `infermeter/${VERSION}`;
