import type { ModelPrice } from './pricing.js';
import type { ChatBody } from './providers/model-provider.js';
import { gatewayErrors } from './openai-error.js';
import { countJson, estimateInputTokens } from './tokenize.js';

/** The most a call can cost, in tokens: what admission reserves for it. */
export type WorstCase = {
  /** Every input the provider bills: text, names, tool calls, images, tool definitions, response format. */
  inputTokens: number;
  /** `n`: each choice is billed its own output. */
  choices: number;
  /** The output limit per choice the client asked for (the lower of both names), within the model's; none named → undefined. */
  maxTokens: number | undefined;
};

/** OpenAI's chat-completions request fields that the provider bills from what admission reserves, or not at all. */
const forwarded = new Set([
  'model',
  'messages',
  'max_tokens',
  'max_completion_tokens',
  'n',
  'stream',
  'stream_options',
  'temperature',
  'top_p',
  'frequency_penalty',
  'presence_penalty',
  'logit_bias',
  'logprobs',
  'top_logprobs',
  'seed',
  'stop',
  'user',
  'metadata',
  'store',
  'response_format',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'functions',
  'function_call',
  'reasoning_effort',
  'verbosity',
  'service_tier',
  'modalities',
  'prompt_cache_key',
  'safety_identifier',
]);

/** Fields that change the provider's bill in ways the price list does not price: refused, not absorbed. */
const unpriced: Record<string, string> = {
  audio: 'Audio output is not offered on this gateway: its price is not on the price list.',
  prediction: 'Predicted outputs are not offered on this gateway: rejected prediction tokens are not priced here.',
  web_search_options: 'Web search is not offered on this gateway: its per-call fees are not on the price list.',
};

/** `auto` and `default` are the project's standard prices, which the price list holds; the other tiers are priced otherwise. */
const pricedTiers = new Set(['auto', 'default']);

// OpenAI's cookbook constants for tool definitions, rounded up: per function, once at the end, once per request.
const perTool = 7;
const toolsOverhead = 12 + 9;

function refuseUnpriced(body: ChatBody): void {
  for (const field of Object.keys(body)) {
    if (unpriced[field] !== undefined && body[field] !== null) throw gatewayErrors.invalidRequest(unpriced[field], field);
    if (!forwarded.has(field)) throw gatewayErrors.invalidRequest(`Unrecognized request argument supplied: ${field}`, field);
  }
  if (body.service_tier != null && !pricedTiers.has(String(body.service_tier))) {
    throw gatewayErrors.invalidRequest(
      `service_tier '${String(body.service_tier)}' is not offered on this gateway: its prices are not on the price list.`,
      'service_tier',
    );
  }
  const modalities = body.modalities;
  if (Array.isArray(modalities) && modalities.some((modality) => modality !== 'text')) {
    throw gatewayErrors.invalidRequest(unpriced.audio!, 'modalities');
  }
}

/** Image parts at the model's worst case per detail level; any part the price list does not price is refused. */
function imageTokens(body: ChatBody, model: ModelPrice): number {
  let tokens = 0;
  body.messages.forEach((message, index) => {
    if (!Array.isArray(message.content)) return;
    message.content.forEach((part: { type?: unknown; image_url?: { detail?: unknown } }, partIndex) => {
      const param = `messages.[${index}].content.[${partIndex}].type`;
      if (part.type === 'text' || part.type === 'refusal') return;
      if (part.type === 'image_url' && model.imageTokens) {
        tokens += part.image_url?.detail === 'low' ? model.imageTokens.low : model.imageTokens.high;
        return;
      }
      throw gatewayErrors.invalidRequest(`The model '${model.id}' does not accept '${String(part.type)}' content parts on this gateway.`, param);
    });
  });
  return tokens;
}

/** Tool and function definitions are billed as input (rewritten by the provider, never longer than their JSON). */
function definitionTokens(body: ChatBody): number {
  let tokens = 0;
  for (const field of ['tools', 'functions'] as const) {
    const definitions = body[field];
    if (Array.isArray(definitions) && definitions.length > 0) tokens += countJson(definitions) + perTool * definitions.length + toolsOverhead;
  }
  for (const field of ['tool_choice', 'function_call'] as const) {
    if (typeof body[field] === 'object' && body[field] !== null) tokens += countJson(body[field]) + perTool;
  }
  if (typeof body.response_format === 'object' && body.response_format !== null) tokens += countJson(body.response_format);
  return tokens;
}

/** The input a provider bills as text: the messages with their framing, and the tool and function definitions, response format included. */
export const textInputTokens = (body: ChatBody): number => estimateInputTokens(body.messages) + definitionTokens(body);

/**
 * What a call can cost at most, or a 400 for a request the price list cannot price. Both names of
 * the output limit count: whichever the client sent, the lower one is what the provider may produce.
 */
export function worstCaseOf(body: ChatBody, model: ModelPrice): WorstCase {
  refuseUnpriced(body);
  const inputTokens = textInputTokens(body) + imageTokens(body, model);
  const limits = [body.max_tokens, body.max_completion_tokens].filter((limit): limit is number => limit !== undefined && limit !== null);
  const maxTokens = limits.length ? Math.min(...limits, model.maxOutputTokens) : undefined;
  return { inputTokens, choices: body.n ?? 1, maxTokens };
}
