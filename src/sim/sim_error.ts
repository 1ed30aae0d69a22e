/**
 * OpenAI-style API errors of the simulated server: `{"error": {"message", "type", "param", "code"}}` with `code`
 * the HTTP status (vLLM's habit; OpenAI puts a string there), so clients can record (type, code, message).
 */

export type SimErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "not_found_error"
  | "server_error";

/** A request the server refuses; thrown by the request parser, turned into a response by the app. */
export class SimRequestError extends Error {
  readonly status: number;
  readonly type: SimErrorType;
  readonly param: string | null;

  constructor(status: number, type: SimErrorType, message: string, param: string | null = null) {
    super(message);
    this.name = "SimRequestError";
    this.status = status;
    this.type = type;
    this.param = param;
  }
}

/** The JSON body text of an error response. */
export function simErrorBody(status: number, type: SimErrorType, message: string, param: string | null = null): string {
  return JSON.stringify({ error: { message, type, param, code: status } });
}
