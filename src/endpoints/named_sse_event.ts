/** One named server-sent event as it goes on the wire: `event:` line, `data:` line, blank line. */
export function namedSseEvent(type: string, data: string): string {
  return `event: ${type}\ndata: ${data}\n\n`;
}
