export { appSchema } from './app-schema.js';
export { organizations, persons } from './people.js';
export { keySpend, publishableKeys } from './publishable-keys.js';
export { chatCompletions } from './chat-completions.js';
export { feedback } from './feedback.js';
export { secrets } from './secrets.js';
export { billingCustomers, checkoutSessions, creditBalances, creditEntries, paymentEvents } from './credit.js';
export type { CheckoutStatus, CreditEntryKind } from './credit.js';
export { keyRateWindows, reservations } from './metering.js';
