import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { autoTopUpCharges, autoTopUps, checkoutSessions, organizations } from '../../db/schema/index.js';
import type { RouteDeps } from '../../deps.js';
import type { CreditedPayment } from '../../domain/payments/credited-payments.js';
import { renderAutoTopUpReceipt, renderInvoices, renderReceipt } from '../../domain/payments/portal-page.js';
import { reverseSandboxPayment } from '../../domain/payments/sandbox-reversals.js';
import { verifyPortalToken, verifyReceiptToken } from '../../domain/payments/sandbox-provider.js';
import { AppError } from '../../errors/app-error.js';
import type { FastifyZodInstance } from '../../plugins/zod.js';

/**
 * The sandbox's customer portal (Invoices): server-rendered pages behind a signed, expiring link,
 * whose buttons also refund or dispute a paid top-up or auto top-up (the card network's side, played offline).
 */
export function sandboxPortalRoutes(app: FastifyZodInstance, { db, secret, config }: RouteDeps) {
  const holderOf = (token: string) => {
    const holder = verifyPortalToken(secret, token, Date.now());
    if (!holder) throw new AppError('NotFound', 'This invoices link has expired. Open Invoices from the console again.');
    return holder;
  };
  const html = {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'private, no-store',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'",
  };

  const tokenQuery = z.object({ token: z.string().max(300) });
  const invoicesUrl = (token: string) => `${config.apiUrl}/sandbox/portal?token=${token}`;
  /**
   * A receipt page's organisation: by an Invoices link (its page links back to Invoices), or by a
   * link to this receipt only (the credit history's), which opens nothing else.
   */
  const receiptViewer = (token: string, page: string) => {
    const fromPortal = verifyPortalToken(secret, token, Date.now());
    if (fromPortal) return { organizationId: fromPortal.organizationId, links: { invoices: invoicesUrl(token) } };
    const organizationId = verifyReceiptToken(secret, token, page, Date.now());
    if (!organizationId) throw new AppError('NotFound', 'This receipt link has expired. Open the receipt from the console again.');
    return { organizationId, links: {} };
  };

  app.get('/sandbox/portal', { schema: { querystring: tokenQuery } }, async (request, reply) => {
    const { token } = request.query;
    const page = await renderInvoices(db.db, holderOf(token).organizationId, {
      receipt: (payment) =>
        payment.kind === 'top_up'
          ? `${config.apiUrl}/sandbox/portal/receipts/${encodeURIComponent(payment.checkoutSessionId)}?token=${token}`
          : `${config.apiUrl}/sandbox/portal/auto-top-up-receipts/${encodeURIComponent(payment.autoTopUpChargeId)}?token=${token}`,
      reversals: (payment) =>
        payment.kind === 'top_up'
          ? `${config.apiUrl}/sandbox/portal/top-ups/${encodeURIComponent(payment.checkoutSessionId)}/reversals?token=${token}`
          : `${config.apiUrl}/sandbox/portal/auto-top-ups/${encodeURIComponent(payment.autoTopUpChargeId)}/reversals?token=${token}`,
      console: `${config.consoleUrl}/dashboard`,
    });
    return reply.headers(html).send(page);
  });

  // The page's buttons post plain HTML forms.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );
  const reversal = z.object({
    action: z.enum(['refund', 'dispute', 'win', 'lose']),
    /** Dollars of the payment to refund; empty for all that is left. */
    amount: z.preprocess((value) => (value === '' ? undefined : value), z.coerce.number().positive().max(1_000_000).optional()),
  });

  // The button's press is the person's who opened Invoices from the console (the audit log names them).
  const reverse = async (token: string, payment: CreditedPayment, body: z.infer<typeof reversal>) => {
    const { organizationId, personId } = holderOf(token);
    await reverseSandboxPayment(db.db, { organizationId, personId, payment, now: new Date(), ...body });
    return invoicesUrl(token);
  };
  app.post(
    '/sandbox/portal/top-ups/:checkoutSessionId/reversals',
    { schema: { params: z.object({ checkoutSessionId: z.string().max(200) }), querystring: tokenQuery, body: reversal } },
    async (request, reply) => {
      const payment = { kind: 'top_up' as const, checkoutSessionId: request.params.checkoutSessionId };
      return reply.redirect(await reverse(request.query.token, payment, request.body), 303);
    },
  );
  app.post(
    '/sandbox/portal/auto-top-ups/:chargeId/reversals',
    { schema: { params: z.object({ chargeId: z.string().uuid() }), querystring: tokenQuery, body: reversal } },
    async (request, reply) => {
      const payment = { kind: 'auto_top_up' as const, autoTopUpChargeId: request.params.chargeId };
      return reply.redirect(await reverse(request.query.token, payment, request.body), 303);
    },
  );

  app.get(
    '/sandbox/portal/receipts/:checkoutSessionId',
    { schema: { params: z.object({ checkoutSessionId: z.string().max(200) }), querystring: tokenQuery } },
    async (request, reply) => {
      const { organizationId, links } = receiptViewer(request.query.token, `receipts/${request.params.checkoutSessionId}`);
      const [row] = await db.db
        .select({ session: checkoutSessions, organizationName: organizations.name })
        .from(checkoutSessions)
        .innerJoin(organizations, eq(organizations.id, checkoutSessions.organizationId))
        .where(
          and(
            eq(checkoutSessions.id, request.params.checkoutSessionId),
            eq(checkoutSessions.organizationId, organizationId),
            eq(checkoutSessions.status, 'SUCCEEDED'),
          ),
        );
      if (!row) throw new AppError('NotFound', 'Unknown receipt.');
      return reply.headers(html).send(renderReceipt(row.session, row.organizationName, links));
    },
  );

  app.get(
    '/sandbox/portal/auto-top-up-receipts/:chargeId',
    { schema: { params: z.object({ chargeId: z.string().uuid() }), querystring: tokenQuery } },
    async (request, reply) => {
      const { organizationId, links } = receiptViewer(request.query.token, `auto-top-up-receipts/${request.params.chargeId}`);
      const [row] = await db.db
        .select({ charge: autoTopUpCharges, organizationName: organizations.name, brand: autoTopUps.cardBrand, last4: autoTopUps.cardLast4 })
        .from(autoTopUpCharges)
        .innerJoin(organizations, eq(organizations.id, autoTopUpCharges.organizationId))
        .leftJoin(autoTopUps, and(eq(autoTopUps.organizationId, autoTopUpCharges.organizationId), eq(autoTopUps.provider, 'sandbox')))
        .where(
          and(
            eq(autoTopUpCharges.id, request.params.chargeId),
            eq(autoTopUpCharges.organizationId, organizationId),
            eq(autoTopUpCharges.provider, 'sandbox'),
            eq(autoTopUpCharges.status, 'succeeded'),
          ),
        );
      if (!row) throw new AppError('NotFound', 'Unknown receipt.');
      const card = row.brand && row.last4 ? { brand: row.brand, last4: row.last4 } : undefined;
      return reply.headers(html).send(renderAutoTopUpReceipt(row.charge, row.organizationName, card, links));
    },
  );
}
