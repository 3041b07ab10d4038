import { z } from 'zod';
import { requiredText } from '../../lib/validation';

// The auth forms' rules (spec §5, §9).

/** Login credentials: e-mail and password, 3 to 100 characters. */
export const loginSchema = z.object({
  email: requiredText({ min: 3, max: 100 }),
  password: requiredText({ min: 3, max: 100 }),
});

export type LoginValues = z.infer<typeof loginSchema>;

export const termsRequiredMessage = 'You must agree to the terms of service and privacy policy to create an account';

/** Signup: the login rules plus the required terms checkbox. */
export const signupSchema = z.object({
  ...loginSchema.shape,
  acceptTerms: z.boolean().refine((accepted) => accepted, termsRequiredMessage),
});

export type SignupValues = z.infer<typeof signupSchema>;

/** Recovery: the e-mail, at least 3 characters. */
export const recoverSchema = z.object({ email: requiredText({ min: 3 }) });

export type RecoverValues = z.infer<typeof recoverSchema>;

/** The e-mailed codes (verification and recovery): exactly 6 characters. */
export const codeSchema = z.object({ code: requiredText({ min: 6, max: 6 }) });

export type CodeValues = z.infer<typeof codeSchema>;
