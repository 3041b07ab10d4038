import type { IncomingMessage } from 'node:http';
import { createParser } from 'eventsource-parser';

/**
 * The JSON of a server-sent event stream's `data:` events, up to `[DONE]`, framed by
 * eventsource-parser (CRLF or LF, events split anywhere across reads, comments and retries skipped).
 */
export async function* sseEvents(response: IncomingMessage): AsyncGenerator<Record<string, unknown>> {
  const ready: string[] = [];
  const parser = createParser({ onEvent: (event) => ready.push(event.data) });
  response.setEncoding('utf8');
  for await (const piece of response as AsyncIterable<string>) {
    parser.feed(piece);
    for (const data of ready.splice(0)) {
      if (data === '[DONE]') return;
      if (data !== '') yield JSON.parse(data) as Record<string, unknown>;
    }
  }
}
