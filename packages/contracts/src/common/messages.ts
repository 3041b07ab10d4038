/**
 * The validation texts of product-spec §5, shared by the console's forms and the api's checks so
 * a user sees the same words whichever side catches the mistake.
 */
export const validationMessages = {
  required: 'This field is required',
  minLength: (n: number) => `Minimum length is ${n}`,
  maxLength: (n: number) => `Maximum length is ${n}`,
  min: (n: number) => `Minimum is ${n}`,
  max: (n: number) => `Maximum is ${n}`,
  origins: 'All items must start with http:// or https://',
} as const;
