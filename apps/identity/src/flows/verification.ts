import type { IdentityContext } from '../context.js';
import { issueCode } from '../domain/codes.js';
import { findAddress, markAddressSent } from '../domain/identities.js';
import { verificationCodeMail } from '../mail/templates.js';
import { createFlow, type Flow } from './flow-store.js';
import { verificationUi } from './verification-ui.js';

export const verificationAction = (ctx: IdentityContext, flowId: string) => `${ctx.config.identityUrl}/self-service/verification?flow=${flowId}`;

/**
 * Mails a fresh code for `email` on this flow. An address nobody registered gets no mail, yet the
 * caller answers the same way, so the form cannot be used to find out who has an account.
 */
export async function sendVerificationCode(ctx: IdentityContext, flow: Flow, email: string): Promise<void> {
  const address = await findAddress(ctx.db, email);
  if (!address || address.verified) return;
  const now = ctx.clock.now();
  const code = await issueCode(ctx.db, ctx.secret, { flowId: flow.id, kind: 'verification_code', address: email, identityId: address.identityId, now });
  await ctx.mailer.send(verificationCodeMail(email, code));
  await markAddressSent(ctx.db, address.id, now);
}

/** A verification flow already in `sent_email` with the code on its way (after registration or an e-mail change). */
export async function startVerificationFor(
  ctx: IdentityContext,
  input: { email: string; csrfToken: string; requestUrl: string; returnTo?: string | undefined },
): Promise<Flow> {
  const flow = await createFlow(ctx.db, {
    kind: 'verification',
    state: 'sent_email',
    active: 'code',
    csrfToken: input.csrfToken,
    requestUrl: input.requestUrl,
    returnTo: input.returnTo,
    ui: (id) => verificationUi.sentEmail(verificationAction(ctx, id), input.email),
    context: { email: input.email },
    now: ctx.clock.now(),
  });
  await sendVerificationCode(ctx, flow, input.email);
  return flow;
}
