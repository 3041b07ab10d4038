import type { RouteDeps } from '../../deps.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';

/** System-admin routes; the caller has checked the viewer is a system admin. */
export function adminRoutes(_app: FastifyZodInstance, _deps: RouteDeps) {}
