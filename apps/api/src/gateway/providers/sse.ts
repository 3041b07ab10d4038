import { createParser } from 'eventsource-parser';

/**
 * The JSON of a server-sent event stream's `data:` events, up to `[DONE]`, framed by
 * eventsource-parser (CRLF or LF, events split anywhere across reads, comments and retries skipped).
 */
export async function* sseEvents(body: AsyncIterable<Buffer>): AsyncGenerator<Record<string, unknown>> {
  const ready: string[] = [];
  const parser = createParser({ onEvent: (event) => ready.push(event.data) });
  // A character split across two pieces is decoded whole.
  const decoder = new TextDecoder();
  for await (const piece of body) {
    parser.feed(decoder.decode(piece, { stream: true }));
    for (const data of ready.splice(0)) {
      if (data === '[DONE]') return;
      if (data !== '') yield JSON.parse(data) as Record<string, unknown>;
    }
  }
}
