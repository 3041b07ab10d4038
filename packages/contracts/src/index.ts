export { healthSchema, type Problem, problemSchema } from './common/problem.js';
export { validationMessages } from './common/messages.js';
export { listQuerySchema, type ListQuery, maxPageSize, pageOf, paginationSchema } from './common/pagination.js';
export { checkoutStatusSchema, emailNotVerifiedSchema, type Me, meSchema } from './bff/me.js';
export {
  defaultPerClientLimits,
  isAllowedOrigin,
  maxClientRequestsPerMinute,
  maxKeyBudget,
  maxOutputTokensPerCallLimit,
  maxResponseCacheSeconds,
  maxRollOverlapHours,
  normalizeOrigins,
  type PublishableKey,
  type PublishableKeyFields,
  type PublishableKeyInput,
  publishableKeyInputSchema,
  publishableKeyListSchema,
  publishableKeyParamsSchema,
  type PublishableKeyRoll,
  publishableKeyRollSchema,
  type PublishableKeyDeletion,
  publishableKeyDeletionSchema,
  maxKeyDeletionReasonLength,
  publishableKeySchema,
  type KeyBlock,
  type KeyBlockInput,
  keyBlockInputSchema,
  type KeyCallers,
  keyCallersSchema,
  isJwksUrl,
  maxEndUserLength,
  topCallersPerList,
  keyBlockListSchema,
  keyBlockParamsSchema,
  keyBlockSchema,
  maxBlocksPerKey,
  type PriceList,
  type PricedModel,
  pricedModelListSchema,
} from './bff/publishable-keys.js';
export {
  type SecretKey,
  type SecretKeyFields,
  type SecretKeyInput,
  secretKeyInputSchema,
  secretKeyListSchema,
  secretKeyParamsSchema,
  secretKeyPrefixLength,
  secretKeySchema,
  type SecretKeyScope,
  secretKeyScopes,
  type SecretKeyUpdateFields,
  secretKeyUpdateSchema,
} from './bff/secret-keys.js';
export {
  type ChatCompletion,
  chatCompletionExportQuerySchema,
  chatCompletionPageSchema,
  chatCompletionQuerySchema,
  chatCompletionSchema,
} from './bff/chat-completions.js';
export { maxUsageDays, type UsageDaily, usageDailyQuerySchema, usageDailySchema, type UsageDay, type UsageKey } from './bff/usage-daily.js';
export { feedbackCreatedSchema, type FeedbackInput, feedbackInputSchema, feedbackTypes } from './bff/feedback.js';
export { type Feedback, feedbackPageSchema, feedbackSchema, type Person, personPageSchema, personSchema } from './admin/lists.js';
export {
  type CreditGrant,
  type CreditGrantInput,
  creditGrantInputSchema,
  creditGrantSchema,
  grantExpiryOf,
  lastGrantDayOf,
  maxCreditGrantAmount,
} from './admin/credit-grants.js';
export {
  type CheckoutOutcome,
  checkoutOutcomeSchema,
  checkoutSessionRequestSchema,
  checkoutSessionResponseSchema,
  customerPortalResponseSchema,
  maxCheckoutAmount,
  minCheckoutAmount,
  paymentConfigSchema,
  sandboxCheckoutSchema,
  sandboxConfirmSchema,
} from './bff/payments.js';
export { type ChatRequest, chatRequestSchema } from './gateway/chat.js';
export { type AlertSettings, alertSettingsSchema, maxKeyBudgetPercents, maxLowBalanceAlert } from './bff/alert-settings.js';
export {
  continueWith,
  errorId,
  errorReason,
  type FlowLike,
  type FlowMessage,
  type IdentityFailure,
  isFlowBody,
  readFailure,
  redirectBrowserTo,
} from './identity/failure.js';
export { type IdentityWithAddresses, isEmailVerified } from './identity/verified-email.js';
export {
  currentOrganizationInputSchema,
  type Invitation,
  invitationAcceptSchema,
  type InvitationInput,
  invitationInputSchema,
  invitationLifetimeDays,
  invitationParamsSchema,
  invitationSchema,
  type Member,
  type MemberList,
  memberListSchema,
  memberParamsSchema,
  memberRoleInputSchema,
  memberSchema,
  type OrganizationMembership,
  organizationInputSchema,
  organizationMembershipSchema,
  organizationParamsSchema,
  type Permission,
  type Role,
  roles,
  rolesAllowedTo,
  roleSchema,
  can,
  adminKeyPermissions,
  canMakeAdminKey,
} from './bff/members.js';
export {
  type AuditAction,
  auditActions,
  type AuditChanges,
  type AuditEntry,
  auditEntrySchema,
  auditLogPageSchema,
  type AuditLogQuery,
  auditLogQuerySchema,
} from './bff/audit-log.js';
export {
  type CreditHistoryEntry,
  creditHistoryEntrySchema,
  type CreditHistoryKind,
  creditHistoryKinds,
  creditHistoryPageSchema,
  type CreditHistoryQuery,
  creditHistoryQuerySchema,
} from './bff/credit-history.js';
export {
  type AutoTopUp,
  type AutoTopUpInput,
  autoTopUpInputSchema,
  autoTopUpSchema,
  defaultAutoTopUp,
  maxAutoTopUpMonthlyCap,
  maxAutoTopUpThreshold,
} from './bff/auto-top-up.js';
export {
  maxWebhookEndpoints,
  type WebhookDelivery,
  webhookAttemptSchema,
  webhookDeliveryListSchema,
  webhookDeliverySchema,
  type WebhookEndpoint,
  type WebhookEndpointInput,
  webhookEndpointInputSchema,
  webhookEndpointListSchema,
  webhookEndpointParamsSchema,
  webhookEndpointSchema,
  type WebhookEvent,
  webhookEventSchema,
  type WebhookEventType,
  webhookEventTypes,
  webhookSignatureHeader,
  webhookToleranceSeconds,
} from './bff/webhooks.js';
export { type OrganizationBalance, organizationBalanceSchema } from './developer/balance.js';
export { organizationKeyParamsSchema } from './developer/params.js';
export { type DeveloperError, developerErrorSchema } from './developer/errors.js';
