export { appSchema } from './app-schema.js';
export { memberships, organizations, persons } from './people.js';
export { auditEntries, invitations } from './teams.js';
export { type EndUserTokens, type KeyBlockRow, type KeyKind, publishableKeys, type SecretKeyScope } from './publishable-keys.js';
export { keyValues } from './key-values.js';
export { chatCompletions } from './chat-completions.js';
export { responseCache } from './response-cache.js';
export { feedback } from './feedback.js';
export { secrets } from './secrets.js';
export {
  autoTopUpCharges,
  autoTopUps,
  billingCustomers,
  checkoutSessions,
  creditBalances,
  creditEntries,
  creditGrants,
  paymentDisputes,
  paymentEvents,
} from './credit.js';
export { paymentObjects } from './payment-objects.js';
export type { AutoTopUpChargeStatus, CheckoutStatus, CreditEntryKind, DisputeStatus } from './credit.js';
export { callerHours, callerSpend, keySpend, rateWindows, reservations } from './metering.js';
export { usageDaily } from './usage-daily.js';
export { alertDeliveries, alertSettings } from './alerts.js';
export type { AlertKind } from './alerts.js';
export { webhookAttempts, webhookDeliveries, webhookEndpoints, webhookEvents } from './webhooks.js';
export type { WebhookDeliveryStatus } from './webhooks.js';
