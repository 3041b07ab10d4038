import { z } from 'zod';

/**
 * Every failure of the developer API (/v1/organization/…), in OpenAI's error shape like the
 * gateway's: branch on `code`; `param` names the field at fault, when there is one.
 */
export const developerErrorSchema = z.object({
  error: z.object({
    message: z.string(),
    type: z.string(),
    code: z.string(),
    param: z.string().nullable(),
  }),
});

export type DeveloperError = z.infer<typeof developerErrorSchema>;
