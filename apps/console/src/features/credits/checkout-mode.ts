import { paths } from '../../config/paths';

/** `payment` buys credit; `setup` saves a card for auto top-up and charges nothing (issue #22). */
export type CheckoutMode = 'payment' | 'setup';

/** Where the checkout returns, to follow the session to its outcome. */
export const checkoutStatusHref = (mode: CheckoutMode, checkoutSessionId: string): string =>
  mode === 'setup' ? paths.autoTopUpCard.getHref(checkoutSessionId) : paths.addCredits.getHref(checkoutSessionId);

/** What a setup-mode checkout says instead of an order summary. */
export const setupExplanation =
  'This saves your card for auto top-up. Nothing is charged now: the card is charged only when your balance falls below your threshold, up to your monthly cap.';
