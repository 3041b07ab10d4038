import { z } from 'zod';

/** The form messages of spec §5, word for word. */
export const validationMessages = {
  required: 'This field is required',
  minLength: (min: number) => `Minimum length is ${min}`,
  maxLength: (max: number) => `Maximum length is ${max}`,
} as const;

type TextRules = { min?: number; max?: number };

/**
 * A required text field whose length is counted after trimming. The value itself is not trimmed:
 * a password keeps its spaces. One message per field, the first rule that fails.
 */
export function requiredText({ min, max }: TextRules = {}) {
  return z.string().superRefine((value, context) => {
    const length = value.trim().length;
    const message =
      length === 0
        ? validationMessages.required
        : min !== undefined && length < min
          ? validationMessages.minLength(min)
          : max !== undefined && length > max
            ? validationMessages.maxLength(max)
            : undefined;
    if (message) context.addIssue({ code: 'custom', message });
  });
}
