/** Input found bad before anything was sent (a --goodput typo, an unreadable tokenizer, an empty dataset): exit 2. */
export class RunInputError extends Error {}
