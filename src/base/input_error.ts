/**
 * The user's input is wrong and nothing was sent: a flag's value the run cannot honour, a dataset line, a tokenizer
 * that cannot be read. The CLI prints the message alone and exits 2.
 */
export class InputError extends Error {
  override readonly name: string = "InputError";
}
