import { z } from 'zod';
import { feedbackTypes } from '../bff/feedback.js';
import { organizationMembershipSchema } from '../bff/members.js';
import { pageOf } from '../common/pagination.js';

export const personSchema = z.object({
  id: z.string(),
  email: z.string(),
  createdAt: z.string(),
  /** Dollars the person's organisation owes after a refund or dispute (its keys stop meanwhile); 0 when nothing. */
  owedAmount: z.number(),
  /** Every organisation the person belongs to with their role in it, oldest membership first. */
  organizations: z.array(organizationMembershipSchema),
});
export const feedbackSchema = z.object({ id: z.string(), fromEmail: z.string(), type: z.enum(feedbackTypes), description: z.string() });

export const personPageSchema = pageOf(personSchema);
export const feedbackPageSchema = pageOf(feedbackSchema);

export type Person = z.infer<typeof personSchema>;
export type Feedback = z.infer<typeof feedbackSchema>;
