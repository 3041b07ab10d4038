import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { countTokens } from 'gpt-tokenizer';
import { costOf } from '../domain/metering/settlement.js';
import type { Pricing } from '../gateway/pricing.js';

/**
 * `greedy`: every choice produces all of its limit (a provider's worst case).
 * `cached`: as greedy, and half the prompt is reported as cached input.
 * `over-report`: reports 50 output tokens more than the limit allowed (a provider that is wrong).
 * `held`: as greedy, answering only once the test calls `answerHeld()` (a slow provider, without a clock).
 * `hang`: bills the request as greedy would, and never answers.
 * `rate-limited`, `failing`: refuses the request with 429 or 500, billing nothing, as providers do.
 * `cut`: bills as greedy would, and drops the connection: a stream after its first token, a JSON answer before it is sent.
 */
export type BillingMode = 'greedy' | 'cached' | 'over-report' | 'held' | 'hang' | 'rate-limited' | 'failing' | 'cut';

const refusals = {
  'rate-limited': { status: 429, error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' } },
  failing: { status: 500, error: { message: 'The server had an error while processing your request.', type: 'server_error', code: null } },
};

type Json = Record<string, any>;

/**
 * How OpenAI bills an image when the request does not say its size: the largest it can be, per
 * model and detail (platform docs, "Calculating costs": 85 + 170 per 512-px tile, at most 8 tiles
 * for 4o; 4o-mini's tiles cost 33× more).
 */
const imageBill: Record<string, { low: number; high: number }> = {
  'gpt-4o': { low: 85, high: 85 + 8 * 170 },
  'gpt-4o-mini': { low: 2_833, high: 2_833 + 8 * 5_667 },
};

const tokens = (text: string) => (text ? countTokens(text, { disallowedSpecial: new Set() }) : 0);

/** A JSON schema as the TypeScript-like text OpenAI renders tool parameters to (hmarr/openai-chat-tokens). */
function typeText(schema: Json | undefined): string {
  if (!schema) return 'any';
  if (Array.isArray(schema.enum)) return schema.enum.map((value: unknown) => JSON.stringify(value)).join(' | ');
  if (schema.type === 'object') {
    const required = new Set<string>(schema.required ?? []);
    const fields = Object.entries<Json>(schema.properties ?? {}).map(
      ([name, property]) => `${property.description ? `// ${property.description}\n` : ''}${name}${required.has(name) ? '' : '?'}: ${typeText(property)},`,
    );
    return `{\n${fields.join('\n')}\n}`;
  }
  if (schema.type === 'array') return `${typeText(schema.items)}[]`;
  return typeof schema.type === 'string' ? schema.type : 'any';
}

/** Tool definitions as OpenAI bills them: rewritten to a TypeScript namespace, plus its fixed overhead. */
function toolTokens(body: Json): number {
  const functions: Json[] = [...(body.tools ?? []).map((tool: Json) => tool.function ?? {}), ...(body.functions ?? [])];
  if (functions.length === 0) return 0;
  const text = functions.map((fn) => `${fn.description ? `// ${fn.description}\n` : ''}type ${fn.name} = (_: ${typeText(fn.parameters)}) => any;`).join('\n\n');
  const namedChoice = typeof body.tool_choice === 'object' && body.tool_choice ? 4 + tokens(body.tool_choice.function?.name ?? '') : 0;
  return tokens(`namespace functions {\n\n${text}\n\n} // namespace functions`) + 9 + namedChoice;
}

/** The prompt as OpenAI counts it: 3 tokens per message, 1 more with a name, 3 to prime the reply. */
function promptTokens(body: Json): number {
  const images = imageBill[body.model];
  let count = 3 + toolTokens(body);
  for (const message of body.messages ?? []) {
    count += 3 + tokens(message.role ?? '');
    if (typeof message.name === 'string') count += 1 + tokens(message.name);
    if (message.tool_calls) count += tokens(JSON.stringify(message.tool_calls));
    if (typeof message.tool_call_id === 'string') count += tokens(message.tool_call_id);
    const parts: Json[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : (message.content ?? []);
    for (const part of parts) {
      if (part.type === 'text') count += tokens(part.text ?? '');
      else if (part.type === 'image_url') count += part.image_url?.detail === 'low' ? (images?.low ?? 0) : (images?.high ?? 0);
    }
  }
  if (body.response_format?.json_schema) count += tokens(JSON.stringify(body.response_format.json_schema));
  return count;
}

/**
 * An OpenAI-like provider for tests that bills as OpenAI does (prompt framing, images at their
 * token cost, tool schemas rewritten as TypeScript, every choice's output) and keeps its own tally
 * of what it billed, priced from the same price list as the gateway. It speaks the real wire
 * format: JSON with `n` choices, or server-sent events with `include_usage`.
 */
export async function startBillingUpstream(pricing: Pricing) {
  let mode: BillingMode = 'greedy';
  let billedNanos = 0n;
  let streamsEnded = 0;
  const requests: Json[] = [];
  const held: (() => void)[] = [];

  function bill(body: Json, prompt: number, cached: number, output: number) {
    const price = pricing.models.get(body.model);
    if (!price) throw new Error(`the stand-in has no price for ${body.model}`);
    billedNanos += costOf({ inputTokens: prompt, cachedInputTokens: cached, outputTokens: output, prices: price }).totalNanos;
  }

  const server = createServer(async (request: IncomingMessage, response: ServerResponse) => {
    let raw = '';
    for await (const chunk of request) raw += chunk;
    const body = JSON.parse(raw || '{}') as Json;
    requests.push(body);
    if (mode === 'rate-limited' || mode === 'failing') {
      const { status, error } = refusals[mode];
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error }));
      return;
    }
    const limits = [body.max_tokens, body.max_completion_tokens].filter((limit) => typeof limit === 'number');
    const perChoice = limits.length ? Math.min(...limits) : 16;
    const choices = body.n ?? 1;
    const prompt = promptTokens(body);
    const cached = mode === 'cached' ? Math.floor(prompt / 2) : 0;
    const completion = perChoice * choices + (mode === 'over-report' ? 50 : 0);
    bill(body, prompt, cached, completion);
    const usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, prompt_tokens_details: { cached_tokens: cached } };
    if (mode === 'hang') return;
    if (mode === 'held') await new Promise<void>((resolve) => held.push(resolve));
    const base = { id: 'chatcmpl-standin', created: 1, model: body.model };
    if (!body.stream) {
      if (mode === 'cut') return void response.destroy();
      const content = ' token'.repeat(perChoice);
      const answers = Array.from({ length: choices }, (_, index) => ({ index, message: { role: 'assistant', content }, finish_reason: 'length' }));
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...base, object: 'chat.completion', choices: answers, usage }));
      return;
    }
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    // A token at a time, for every choice in turn, as providers stream; at the gateway's pace.
    for (let token = 0; token < perChoice; token++) {
      for (let index = 0; index < choices; index++) {
        const event = {
          ...base,
          object: 'chat.completion.chunk',
          choices: [{ index, delta: { content: ' token' }, finish_reason: token === perChoice - 1 ? 'length' : null }],
        };
        if (!response.write(`data: ${JSON.stringify(event)}\n\n`)) await new Promise((resolve) => response.once('drain', resolve));
        if (mode === 'cut') return void setImmediate(() => response.destroy());
      }
    }
    if (body.stream_options?.include_usage) response.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [], usage })}\n\n`);
    response.end('data: [DONE]\n\n');
    streamsEnded++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    /** What the provider has billed so far, in nano-dollars at the price list's prices. */
    billedNanos: () => billedNanos,
    /** Streams it sent to their end. */
    streamsEnded: () => streamsEnded,
    setMode: (next: BillingMode) => {
      mode = next;
    },
    /** Sends the answers `held` mode is holding back. */
    answerHeld: () => {
      for (const answer of held.splice(0)) answer();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
