import { z } from 'zod';

const contentPart = z.object({ type: z.string() }).loose();

/**
 * An output limit: any whole number from 1, however large (beyond 2^53 too, which `.int()` would
 * refuse as not whole); admission lowers it to what the model and the key allow.
 */
const tokenLimit = (name: string) =>
  z.number().min(1, `${name} must be at least 1`).refine(Number.isInteger, `${name} must be a whole number`).nullable().optional();

/** The part of an OpenAI chat-completions request the gateway checks; everything else passes through. */
export const chatRequestSchema = z
  .object({
    model: z.string({ error: 'model is required' }).min(1, 'model is required').max(100),
    messages: z
      .array(
        z
          .object({
            role: z.enum(['system', 'developer', 'user', 'assistant', 'tool'], { error: 'role must be system, developer, user, assistant or tool' }),
            content: z.union([z.string(), z.array(contentPart), z.null()]).optional(),
          })
          .loose(),
        { error: 'messages must be an array' },
      )
      .min(1, 'messages must not be empty')
      .max(2048),
    max_tokens: tokenLimit('max_tokens'),
    max_completion_tokens: tokenLimit('max_completion_tokens'),
    // OpenAI's own bounds: 1 to 128 choices.
    n: z.number().int('n must be a whole number').min(1, 'n must be at least 1').max(128, 'n must be at most 128').nullable().optional(),
    stream: z.boolean({ error: 'stream must be true or false' }).nullable().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).loose().nullable().optional(),
  })
  .loose();

export type ChatRequest = z.infer<typeof chatRequestSchema>;
