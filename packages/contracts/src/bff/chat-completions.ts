import { z } from 'zod';
import { listQuerySchema, pageOf } from '../common/pagination.js';

/** One metered call (spec §3 chat completion); costs in dollars. */
export const chatCompletionSchema = z.object({
  id: z.string(),
  createdAt: z.string(),
  model: z.string(),
  /** The publishable key the call was made with; null for a secret key's call. */
  publishableKeyId: z.string().nullable(),
  /** The secret key the call was made with; null for a publishable key's call. */
  secretKeyId: z.string().nullable(),
  estimatedInputTokens: z.number().int(),
  inputTokens: z.number().int(),
  estimatedInputCost: z.number(),
  inputCost: z.number(),
  outputTokens: z.number().int(),
  outputCost: z.number(),
  totalCost: z.number().optional(),
  /** The end user (the `sub` of the key's end-user token), when the key requires one. */
  endUser: z.string().nullable(),
  /** The caller's network, never the full address: an IPv4 /24 (`203.0.113.0/24`) or IPv6 /48. Null on rows from before it was recorded. */
  clientNetwork: z.string().nullable(),
  /** The provider that served the call (its id in the providers file, `upstream` or `demo`). Null on rows from before it was recorded. */
  provider: z.string().nullable(),
  /** Answered from the key's response cache: no provider saw the call, and it was charged nothing. */
  cacheHit: z.boolean(),
});

export type ChatCompletion = z.infer<typeof chatCompletionSchema>;

/** The list parameters (spec §2) filter by one key of either kind, never both. */
const keyFilter = {
  publishableKeyId: z.uuid({ error: 'publishableKeyId must be a key id' }).optional(),
  secretKeyId: z.uuid({ error: 'secretKeyId must be a key id' }).optional(),
};

const oneKeyAtMost = (query: { publishableKeyId?: string | undefined; secretKeyId?: string | undefined }) =>
  query.publishableKeyId === undefined || query.secretKeyId === undefined;
const bothKeys = { error: 'Filter by publishableKeyId or by secretKeyId, not both', path: ['secretKeyId'] };

export const chatCompletionQuerySchema = listQuerySchema.extend(keyFilter).refine(oneKeyAtMost, bothKeys);

/** GET /bff/chat-completions/export: the list's filters and order; paging does not apply to an export. */
export const chatCompletionExportQuerySchema = listQuerySchema.pick({ asc: true }).extend(keyFilter).refine(oneKeyAtMost, bothKeys);

export const chatCompletionPageSchema = pageOf(chatCompletionSchema);
