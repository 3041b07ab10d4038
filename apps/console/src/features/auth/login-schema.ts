import { z } from 'zod/mini';
import { requiredText } from '../../lib/validation';

/** Login and signup credentials: e-mail and password, 3 to 100 characters (spec §5, §9). */
export const loginSchema = z.object({
  email: requiredText({ min: 3, max: 100 }),
  password: requiredText({ min: 3, max: 100 }),
});

export type LoginValues = z.infer<typeof loginSchema>;
