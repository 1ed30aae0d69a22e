/** A JSON value as the exports build it (undefined fields are dropped when serialized). */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue | undefined };

export type JsonObject = { readonly [key: string]: JsonValue | undefined };
