import { upstreamIdOf } from './soak-upstream.js';

/** What a browser app saw of one gateway call. `status` 0: no HTTP answer at all (the connection failed). */
export type GatewayOutcome = {
  status: number;
  /** OpenAI's `error.code` of a refusal or failure; for a stream, of the error event that ended it. */
  code?: string;
  retryAfter?: string | null;
  contentType?: string | null;
  completionId?: string;
  /** Which upstream call produced the answer (the soak upstream opens every text with its id). */
  upstreamId?: string;
  /** A stream that ended with `[DONE]`. */
  complete?: boolean;
  failure?: string;
};

export type ChatRequest = {
  model: string;
  stream?: boolean;
  max_tokens?: number;
  n?: number;
  tools?: unknown[];
  stream_options?: { include_usage: boolean };
  /** An image part beside the text, at this detail. */
  image?: 'low' | 'high';
};

const text = 'Count a few Greek letters for the soak test.';
const messagesOf = (image: ChatRequest['image']) => [
  {
    role: 'user',
    content: image
      ? [
          { type: 'text', text },
          { type: 'image_url', image_url: { url: 'https://example.com/letters.png', detail: image } },
        ]
      : text,
  },
];

/** Reads a server-sent event stream to its end: the answer's id, its text, an error event, `[DONE]`. */
function readEvents(text: string) {
  let id: string | undefined;
  let content = '';
  let code: string | undefined;
  let done = false;
  for (const event of text.split('\n\n')) {
    const data = event.replace(/^data: /, '').trim();
    if (!data) continue;
    if (data === '[DONE]') {
      done = true;
      continue;
    }
    const json = JSON.parse(data) as { id?: string; error?: { code?: string }; choices?: { index?: number; delta?: { content?: string } }[] };
    if (json.error) code = json.error.code;
    id ??= json.id;
    // The first choice's text: with `n`, the others interleave with it.
    content += (json.choices ?? []).map((choice) => ((choice.index ?? 0) === 0 ? (choice.delta?.content ?? '') : '')).join('');
  }
  return { id, content, code, done };
}

const withoutImage = ({ image: _image, ...request }: ChatRequest) => request;

/**
 * A call whose client leaves as soon as the answer starts (a tab closed mid-answer): the response
 * head is read, the connection dropped. The status, or 0 when it failed before.
 */
export async function abandonGateway(apiUrl: string, key: string, origin: string, request: ChatRequest): Promise<number> {
  const leave = new AbortController();
  try {
    const response = await fetch(`${apiUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, origin, 'content-type': 'application/json' },
      body: JSON.stringify({ ...withoutImage(request), messages: messagesOf(request.image) }),
      signal: leave.signal,
    });
    leave.abort();
    return response.status;
  } catch {
    return 0;
  }
}

/** One chat completion through the gateway, as a browser app with this key and Origin sends it. */
export async function callGateway(apiUrl: string, key: string, origin: string, request: ChatRequest, signal?: AbortSignal): Promise<GatewayOutcome> {
  let response: Response;
  try {
    response = await fetch(`${apiUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, origin, 'content-type': 'application/json' },
      body: JSON.stringify({ ...withoutImage(request), messages: messagesOf(request.image) }),
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    return { status: 0, failure: (error as Error).message };
  }
  const seen = { status: response.status, retryAfter: response.headers.get('retry-after'), contentType: response.headers.get('content-type') };
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    // The headers came and the body broke off: a stream cut by a dying server.
    return { ...seen, failure: (error as Error).message };
  }
  if (response.status !== 200) {
    const body = JSON.parse(text) as { error?: { code?: string } };
    return { ...seen, ...(body.error?.code ? { code: body.error.code } : {}) };
  }
  if (seen.contentType?.startsWith('text/event-stream')) {
    const events = readEvents(text);
    return { ...seen, completionId: events.id, upstreamId: upstreamIdOf(events.content), complete: events.done, ...(events.code ? { code: events.code } : {}) };
  }
  const body = JSON.parse(text) as { id?: string; choices?: { message?: { content?: string } }[] };
  return { ...seen, completionId: body.id, upstreamId: upstreamIdOf(body.choices?.[0]?.message?.content ?? ''), complete: true };
}
