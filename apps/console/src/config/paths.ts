/** Every route path, in one place; links use getHref() so a path is never retyped. */
const withQuery = (path: string, query: Record<string, string | undefined>): string => {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value) search.set(key, value);
  const text = search.toString();
  return text ? `${path}?${text}` : path;
};

export const paths = {
  login: { path: '/login', getHref: () => '/login' },
  signup: { path: '/signup', getHref: () => '/signup' },
  recover: { path: '/recover', getHref: () => '/recover' },
  recoverPassword: { path: '/recover-password', getHref: (flowId?: string) => withQuery('/recover-password', { flowId }) },
  termsOfService: { path: '/terms-of-service', getHref: () => '/terms-of-service' },
  verifyEmail: { path: '/verify-email', getHref: (flowId?: string) => withQuery('/verify-email', { flowId }) },
  dashboard: { path: '/dashboard', getHref: () => '/dashboard' },
  chatCompletions: {
    path: '/chat-completions',
    /** One key's calls: a publishable or a secret key (issue #23). */
    getHref: (keyFilter: { publishableKeyId?: string; secretKeyId?: string } = {}) => withQuery('/chat-completions', keyFilter),
  },
  addCredits: {
    path: '/add-credits',
    getHref: (checkoutSessionId?: string) => withQuery('/add-credits', { checkoutSessionId }),
  },
  /** Saving a card for auto top-up (issue #22); the provider returns with the setup session's id. */
  autoTopUpCard: {
    path: '/auto-top-up/card',
    getHref: (checkoutSessionId?: string) => withQuery('/auto-top-up/card', { checkoutSessionId }),
  },
  /** Top-ups, refunds, disputes and adjustments with their receipts (issue #22). */
  creditHistory: { path: '/credit-history', getHref: () => '/credit-history' },
  members: { path: '/members', getHref: () => '/members' },
  auditLog: { path: '/audit-log', getHref: () => '/audit-log' },
  /** Each model's prices per 1M tokens and limits, and the price list's version (issue #24). */
  models: { path: '/models', getHref: () => '/models' },
  /** The organisation's webhook endpoints and their deliveries (issue #23). */
  webhooks: { path: '/webhooks', getHref: () => '/webhooks' },
  /** The link an invitation mail carries (issue #21). */
  invitation: { path: '/invitations/:token', getHref: (token: string) => `/invitations/${encodeURIComponent(token)}` },
  admin: { path: '/admin', getHref: () => '/admin' },
  adminUsers: { path: '/admin/users', getHref: () => '/admin/users' },
  adminFeedback: { path: '/admin/feedback', getHref: () => '/admin/feedback' },
} as const;
