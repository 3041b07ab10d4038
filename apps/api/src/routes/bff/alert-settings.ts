import { alertSettingsSchema, rolesAllowedTo } from '@meterway/contracts';
import type { RouteDeps } from '../../deps.js';
import { getAlertSettings, saveAlertSettings } from '../../domain/alerts/alert-settings.js';
import { mutationRateLimit } from '../../plugins/rate-limit.js';
import { viewerOf } from '../../plugins/session-auth.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';

export function alertSettingsRoutes(app: FastifyZodInstance, { db }: RouteDeps) {
  app.get('/bff/alert-settings', { config: { roles: rolesAllowedTo.manageCredit }, schema: { response: { 200: alertSettingsSchema } } }, async (request) =>
    getAlertSettings(db.db, viewerOf(request)),
  );

  app.put(
    '/bff/alert-settings',
    { config: { ...mutationRateLimit, roles: rolesAllowedTo.manageCredit }, schema: { body: alertSettingsSchema, response: { 200: alertSettingsSchema } } },
    async (request) => saveAlertSettings(db.db, viewerOf(request), request.body, new Date()),
  );
}
