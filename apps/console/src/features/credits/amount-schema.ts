import { checkoutSessionRequestSchema, maxCheckoutAmount, minCheckoutAmount } from '@meterway/contracts';

/** The amount form validates with the api's own schema, so both sides say the same words (spec §5). */
export const amountSchema = checkoutSessionRequestSchema;

/** Spec §9: 1 to 100 dollars, 10 unless the user changes it. */
export const amountLimits = { min: minCheckoutAmount, max: maxCheckoutAmount, default: 10 } as const;

/** A NumberInput holds '' while empty; the schema answers that with "This field is required". */
export type AmountValues = { amount: number | string };
