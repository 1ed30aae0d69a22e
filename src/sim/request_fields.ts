/**
 * Readers of JSON request fields for the simulator's routes: each returns the value or undefined when the field is
 * absent or null, and throws a 400 `SimRequestError` naming the field when it has the wrong type.
 */
import { SimRequestError } from "./sim_error.ts";

export type JsonObject = Record<string, unknown>;

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The body as an object; a 400 otherwise. */
export function requireObject(body: unknown): JsonObject {
  if (!isJsonObject(body)) throw badRequest("The request body must be a JSON object.");
  return body;
}

/** `prefix` is the path of the object holding `key`, for messages (`stream_options.`). */
export function optionalBoolean(o: JsonObject, key: string, prefix = ""): boolean | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "boolean") throw badRequest(`'${prefix}${key}' must be a boolean.`, prefix + key);
  return v;
}

export function optionalString(o: JsonObject, key: string, prefix = ""): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw badRequest(`'${prefix}${key}' must be a string.`, prefix + key);
  return v;
}

/** An integer of at least `min`. */
export function optionalCount(o: JsonObject, key: string, min: number): number | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < min) {
    throw badRequest(`'${key}' must be an integer of at least ${min}, got ${JSON.stringify(v)}.`, key);
  }
  return v;
}

/** An object field; a 400 when present with another type. */
export function optionalObject(o: JsonObject, key: string): JsonObject | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (!isJsonObject(v)) throw badRequest(`'${key}' must be an object.`, key);
  return v;
}

export function badRequest(message: string, param: string | null = null): SimRequestError {
  return new SimRequestError(400, "invalid_request_error", message, param);
}
