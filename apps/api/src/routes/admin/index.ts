import type { RouteDeps } from '../../deps.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';
import { adminFeedbackRoutes } from './feedback.js';
import { personRoutes } from './persons.js';

/** System-admin routes; the caller has checked the viewer is a system admin. */
export function adminRoutes(app: FastifyZodInstance, deps: RouteDeps) {
  personRoutes(app, deps);
  adminFeedbackRoutes(app, deps);
}
