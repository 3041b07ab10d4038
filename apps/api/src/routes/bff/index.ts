import type { RouteDeps } from '../../deps.js';
import { refuseUnstorableText } from '@meterway/service';
import { unstorableText } from '../../errors/app-error.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';
import { alertSettingsRoutes } from './alert-settings.js';
import { auditLogRoutes } from './audit-log.js';
import { autoTopUpRoutes } from './auto-top-up.js';
import { chatCompletionRoutes } from './chat-completions.js';
import { chatCompletionExportRoutes } from './chat-completions-export.js';
import { creditHistoryRoutes } from './credit-history.js';
import { feedbackRoutes } from './feedback.js';
import { memberRoutes } from './members.js';
import { meRoutes } from './me.js';
import { organizationRoutes } from './organizations.js';
import { paymentRoutes } from './payments.js';
import { publishableKeyRoutes } from './publishable-keys.js';
import { secretKeyRoutes } from './secret-keys.js';
import { usageDailyRoutes } from './usage-daily.js';
import { webhookEndpointRoutes } from './webhook-endpoints.js';

/** The console's backend routes; the caller has authenticated the viewer, each route names the roles it allows (config.roles). */
export function bffRoutes(app: FastifyZodInstance, deps: RouteDeps) {
  // For this scope and the admin routes inside it: what the routes store must be storable.
  refuseUnstorableText(app, unstorableText);
  meRoutes(app, deps);
  publishableKeyRoutes(app, deps);
  secretKeyRoutes(app, deps);
  paymentRoutes(app, deps);
  chatCompletionRoutes(app, deps);
  chatCompletionExportRoutes(app, deps);
  feedbackRoutes(app, deps);
  alertSettingsRoutes(app, deps);
  usageDailyRoutes(app, deps);
  memberRoutes(app, deps);
  organizationRoutes(app, deps);
  auditLogRoutes(app, deps);
  creditHistoryRoutes(app, deps);
  autoTopUpRoutes(app, deps);
  webhookEndpointRoutes(app, deps);
}
