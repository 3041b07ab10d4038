/**
 * The sandbox accepts only Stripe's documented test cards (payments-protocol.md §6). Anything
 * else is refused with a pointer to them: the sandbox takes no real cards.
 */
export type CardOutcome = { outcome: 'succeed' } | { outcome: 'decline'; code: string; message: string };

const outcomes: Record<string, CardOutcome> = {
  '4242424242424242': { outcome: 'succeed' },
  '5555555555554444': { outcome: 'succeed' },
  '4000000000000077': { outcome: 'succeed' },
  '4000000000000002': { outcome: 'decline', code: 'generic_decline', message: 'Your card was declined.' },
  '4000000000009995': { outcome: 'decline', code: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  '4000000000009987': { outcome: 'decline', code: 'lost_card', message: 'Your card was declined.' },
  '4000000000000069': { outcome: 'decline', code: 'expired_card', message: 'Your card has expired.' },
  '4000000000000127': { outcome: 'decline', code: 'incorrect_cvc', message: "Your card's security code is incorrect." },
  // Saved-card cards (issue #22): the holder is present at a checkout, so the first pays; the second
  // attaches but every charge of it fails.
  '4000002760003184': { outcome: 'succeed' },
  '4000000000000341': { outcome: 'decline', code: 'card_declined', message: 'Your card was declined.' },
};

/**
 * What an off-session charge of a saved card does, by Stripe's documented test cards: most cards
 * that save are charged; these two save, and their charges fail. The sandbox's payment method id
 * names the outcome (`pm_sandbox_<outcome>_<random>`), so no card number is kept.
 */
export type OffSessionOutcome = 'succeed' | 'authentication_required' | 'card_declined';
const offSessionOutcomes: Record<string, OffSessionOutcome> = {
  '4000002760003184': 'authentication_required',
  '4000000000000341': 'card_declined',
};
export const offSessionFailures: Record<Exclude<OffSessionOutcome, 'succeed'>, { code: string; message: string }> = {
  authentication_required: {
    code: 'authentication_required',
    message: 'Your card was declined. This transaction requires authentication.',
  },
  card_declined: { code: 'card_declined', message: 'Your card was declined.' },
};

export type CardToSave = { outcome: 'save'; brand: string; last4: string; offSession: OffSessionOutcome };

/** A card given to a setup session: saved (with what its later charges do), refused, or not usable at all. */
export function sandboxCardToSave(number: string): CardToSave | Exclude<CardOutcome, { outcome: 'succeed' }> | { outcome: 'invalid'; message: string } {
  const card = sandboxCard(number);
  const offSession = offSessionOutcomes[number];
  if (card.outcome === 'invalid' || (card.outcome === 'decline' && !offSession)) return card;
  return { outcome: 'save', brand: number.startsWith('5') ? 'mastercard' : 'visa', last4: number.slice(-4), offSession: offSession ?? 'succeed' };
}

function luhnValid(number: string): boolean {
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let digit = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** A card's sandbox outcome, or the reason it cannot be used at all. */
export function sandboxCard(number: string): CardOutcome | { outcome: 'invalid'; message: string } {
  if (!luhnValid(number)) return { outcome: 'invalid', message: 'Your card number is incorrect.' };
  return (
    outcomes[number] ?? {
      outcome: 'invalid',
      message: 'This is a sandbox: no real card is charged. Use a test card such as 4242 4242 4242 4242.',
    }
  );
}

/** Stripe's client-side wording for a MM/YY expiry that has passed; a card is good through its month. */
export function pastExpiryMessage(expiry: string, now: Date): string | undefined {
  const [month = 0, year = 0] = expiry.split('/').map((part) => Number(part.trim()));
  const fullYear = 2000 + year;
  if (fullYear < now.getUTCFullYear()) return "Your card's expiration year is in the past.";
  if (fullYear === now.getUTCFullYear() && month < now.getUTCMonth() + 1) return "Your card's expiration date is in the past.";
  return undefined;
}
