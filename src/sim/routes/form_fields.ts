/**
 * Readers of multipart/form-data fields for the simulator's upload routes: every value arrives as text or a file,
 * so numbers are parsed here, and a wrong one is a 400 naming the field.
 */
import { badRequest } from "../request_fields.ts";
import type { FormObject } from "../form_body.ts";
import { isSimFormFile, type SimFormFile } from "../sim_route.ts";

export function formText(form: FormObject, key: string): string | undefined {
  const v = form[key];
  if (v === undefined) return undefined;
  if (typeof v !== "string") throw badRequest(`'${key}' must be a text field, not a file.`, key);
  return v;
}

export function formFile(form: FormObject, key: string): SimFormFile | undefined {
  const v = form[key];
  if (v === undefined) return undefined;
  if (!isSimFormFile(v)) throw badRequest(`'${key}' must be a file upload.`, key);
  if (v.bytes.length === 0) throw badRequest(`'${key}' is an empty file.`, key);
  return v;
}

/** An integer field of at least `min`. */
export function formCount(form: FormObject, key: string, min: number): number | undefined {
  const text = formText(form, key);
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) {
    throw badRequest(`'${key}' must be an integer of at least ${min}, got ${JSON.stringify(text)}.`, key);
  }
  return n;
}

/** A non-negative number field. */
export function formNumber(form: FormObject, key: string): number | undefined {
  const text = formText(form, key);
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0 || text.trim() === "") {
    throw badRequest(`'${key}' must be a non-negative number, got ${JSON.stringify(text)}.`, key);
  }
  return n;
}

/** The form a form route's `parse` is given; anything else is a route wiring mistake. */
export function requireForm(body: unknown): FormObject {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw badRequest("The request body must be a multipart/form-data form.");
  }
  return body as FormObject;
}
