import { z } from 'zod';
import { listQuerySchema, pageOf } from '../common/pagination.js';

/** One metered call (spec §3 chat completion); costs in dollars. */
export const chatCompletionSchema = z.object({
  id: z.string(),
  createdAt: z.string(),
  model: z.string(),
  publishableKeyId: z.string(),
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
});

export type ChatCompletion = z.infer<typeof chatCompletionSchema>;

export const chatCompletionQuerySchema = listQuerySchema.extend({ publishableKeyId: z.uuid({ error: 'publishableKeyId must be a key id' }).optional() });
export const chatCompletionPageSchema = pageOf(chatCompletionSchema);
