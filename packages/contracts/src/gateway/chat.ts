import { z } from 'zod';

const contentPart = z.object({ type: z.string() }).loose();

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
    max_tokens: z.number().int('max_tokens must be a whole number').min(1, 'max_tokens must be at least 1').nullable().optional(),
    max_completion_tokens: z
      .number()
      .int('max_completion_tokens must be a whole number')
      .min(1, 'max_completion_tokens must be at least 1')
      .nullable()
      .optional(),
    // OpenAI's own bounds: 1 to 128 choices.
    n: z.number().int('n must be a whole number').min(1, 'n must be at least 1').max(128, 'n must be at most 128').nullable().optional(),
    stream: z.boolean({ error: 'stream must be true or false' }).nullable().optional(),
    stream_options: z.object({ include_usage: z.boolean().optional() }).loose().nullable().optional(),
  })
  .loose();

export type ChatRequest = z.infer<typeof chatRequestSchema>;
