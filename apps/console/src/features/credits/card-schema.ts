import { sandboxConfirmSchema } from '@meterway/contracts';

/** The sandbox's card form validates with the api's own confirm schema, less the secret it adds. */
export const cardSchema = sandboxConfirmSchema.omit({ clientSecret: true });

export type CardValues = { cardNumber: string; expiry: string; cvc: string; postalCode: string };

/** Stripe's documented test cards that the sandbox accepts (payments-protocol.md §6). */
export const testCards = { success: '4242 4242 4242 4242', decline: '4000 0000 0000 0002' } as const;

/** The sandbox's cards for saving a card for auto top-up (issue #22): each saves, their later charges differ. */
export const setupTestCards = { success: '4242 4242 4242 4242', decline: '4000 0000 0000 0341', authentication: '4000 0027 6000 3184' } as const;
