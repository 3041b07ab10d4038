import { z } from 'zod';
import { validationMessages as m } from '../common/messages.js';

/** What a feedback entry is about; `key_deletion` carries the optional reason given when deleting a key. */
export const feedbackTypes = ['bug', 'feature_request', 'question', 'key_deletion', 'other'] as const;

export const feedbackInputSchema = z.object({
  type: z.enum(feedbackTypes, { error: `type must be one of ${feedbackTypes.join(', ')}` }),
  description: z
    .string({ error: m.required })
    .transform((value) => value.trim())
    .pipe(z.string().min(1, m.required).max(5000, m.maxLength(5000))),
});

export type FeedbackInput = z.input<typeof feedbackInputSchema>;

export const feedbackCreatedSchema = z.object({ id: z.string() });
