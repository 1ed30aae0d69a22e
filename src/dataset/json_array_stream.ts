/**
 * The elements of a top-level JSON array file, one at a time: public datasets ship as one JSON array larger than
 * a JavaScript string may be (ShareGPT's is 640 MB), so the file is scanned in chunks and each element's text is
 * parsed alone.
 */

/**
 * Yields each element of the JSON array in the UTF-8 file at `path`, parsed.
 * @throws {SyntaxError} when the file is not one JSON array, or an element is not valid JSON (with its index).
 * @throws the file-system errors of `Deno.open`.
 */
export async function* readJsonArray(path: string): AsyncGenerator<unknown> {
  const file = await Deno.open(path, { read: true });
  const stream = file.readable.pipeThrough(new TextDecoderStream());
  let depth = 0;
  let inString = false;
  let escaped = false;
  let started = false;
  let ended = false;
  let element: string[] = [];
  let elementStart = -1;
  let index = 0;
  for await (const chunk of stream) {
    let i = 0;
    if (!started) {
      const first = chunk.search(/\S/);
      if (first < 0) continue;
      if (chunk[first] !== "[") throw new SyntaxError("the file is not a JSON array (it does not start with '[')");
      started = true;
      depth = 1;
      i = first + 1;
    }
    elementStart = depth > 1 || (elementStart >= 0) ? 0 : -1;
    for (; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (inString) {
        if (escaped) escaped = false;
        else if (c === 92) escaped = true; // backslash
        else if (c === 34) inString = false;
        continue;
      }
      if (c === 34) {
        inString = true;
        if (elementStart < 0) elementStart = i;
      } else if (c === 123 || c === 91) { // { [
        if (depth === 1 && elementStart < 0) elementStart = i;
        depth++;
      } else if (c === 125 || c === 93) { // } ]
        depth--;
        if (depth === 0) {
          const text = element.join("") + (elementStart >= 0 ? chunk.slice(elementStart, i) : "");
          if (text.trim() !== "") yield parseElement(text, index++);
          ended = true;
          break;
        }
      } else if (c === 44 && depth === 1) { // , between elements
        const text = element.join("") + (elementStart >= 0 ? chunk.slice(elementStart, i) : "");
        yield parseElement(text, index++);
        element = [];
        elementStart = -1;
      } else if (elementStart < 0 && depth === 1 && c > 32) elementStart = i;
    }
    if (ended) break;
    if (elementStart >= 0) element.push(chunk.slice(elementStart));
  }
  if (!ended) throw new SyntaxError("the JSON array is not closed (file truncated?)");
}

function parseElement(text: string, index: number): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new SyntaxError(`element ${index} is not valid JSON (${(err as Error).message})`);
  }
}
