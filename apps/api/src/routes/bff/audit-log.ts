import { Readable } from 'node:stream';
import { auditLogPageSchema, auditLogQuerySchema, rolesAllowedTo } from '@meterway/contracts';
import type { RouteDeps } from '../../deps.js';
import { exportAuditLog } from '../../domain/audit/export-audit-log.js';
import { listAuditLog } from '../../domain/audit/list-audit-log.js';
import { viewerOf } from '../../plugins/session-auth.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';

/** The list's filters and order, validated the same way; paging does not apply to an export. */
const exportQuerySchema = auditLogQuerySchema.pick({ actorEmail: true, action: true, asc: true });

export function auditLogRoutes(app: FastifyZodInstance, { db, secret }: RouteDeps) {
  const config = { roles: rolesAllowedTo.manageMembers };

  app.get('/bff/audit-log', { config, schema: { querystring: auditLogQuerySchema, response: { 200: auditLogPageSchema } } }, async (request) =>
    listAuditLog({ db: db.db, secret }, viewerOf(request), request.query),
  );

  app.get(
    '/bff/audit-log/export',
    // A HEAD would drain the whole export only to throw it away.
    { config, exposeHeadRoute: false, schema: { querystring: exportQuerySchema } },
    async (request, reply) => {
      const { rowCount, chunks } = await exportAuditLog({ db: db.db, secret }, viewerOf(request), request.query);
      const day = new Date().toISOString().slice(0, 10);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="audit-log-${day}.csv"`)
        .header('x-total-count', String(rowCount))
        .header('cache-control', 'no-store')
        .send(Readable.from(chunks, { objectMode: false }));
    },
  );
}
