/**
 * Stream a text file line by line, so that loaders never hold a huge dataset file in one string.
 */

/** One line of a file, without its terminator. */
export interface Line {
  /** 1-based line number. */
  readonly number: number;
  readonly text: string;
}

/**
 * The lines of the UTF-8 file at `path` (`\n` or `\r\n` terminated; a UTF-8 byte order mark is dropped; invalid
 * bytes become U+FFFD). Stopping early (`break`) closes the file.
 *
 * @throws {Deno.errors.NotFound} and the other file-system errors of `Deno.open`.
 */
export async function* readLines(path: string): AsyncGenerator<Line> {
  const file = await Deno.open(path, { read: true });
  const stream = file.readable.pipeThrough(new TextDecoderStream());
  let number = 0;
  let rest = "";
  for await (const chunk of stream) {
    const text = rest.length > 0 ? rest + chunk : chunk;
    let start = 0;
    // `rest` holds no newline, so the search can begin where the new chunk does.
    for (let nl = text.indexOf("\n", rest.length); nl >= 0; nl = text.indexOf("\n", start)) {
      const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      yield { number: ++number, text: text.slice(start, end) };
      start = nl + 1;
    }
    rest = start === 0 ? text : text.slice(start);
  }
  if (rest.length > 0) {
    yield { number: ++number, text: rest.endsWith("\r") ? rest.slice(0, -1) : rest };
  }
}
