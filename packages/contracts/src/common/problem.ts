import { z } from 'zod';

/** RFC 9457 problem details: the body of every api 4xx and 5xx (`application/problem+json`). */
export const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    /** The api's error code (AppError), when there is one. */
    code: z.string().optional(),
    /** Field-level problems of a rejected request body or query. */
    errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .loose();

export type Problem = z.infer<typeof problemSchema>;

export const healthSchema = z.object({ status: z.literal('ok') });
