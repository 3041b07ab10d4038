import { randomUUID } from 'node:crypto';
import type { Database } from '@meterway/db';
import { eq } from 'drizzle-orm';
import type { IdentityContext } from '../context.js';
import { identities } from '../db/schema/identities.js';
import { hasTotp } from '../domain/identities.js';
import { newTotpSecret, totpQrDataUrl, totpUri } from '../domain/totp.js';
import { createFlow, type Flow } from './flow-store.js';
import type { UiText } from './messages.js';
import { settingsUi, type TotpState } from './settings-ui.js';
import { withMessages } from './ui-nodes.js';

export const settingsAction = (ctx: IdentityContext, flowId: string) => `${ctx.config.identityUrl}/self-service/settings?flow=${flowId}`;

export async function identityEmail(db: Database, identityId: string): Promise<string> {
  const [identity] = await db.select({ traits: identities.traits }).from(identities).where(eq(identities.id, identityId)).limit(1);
  return identity?.traits.email ?? '';
}

/**
 * The settings UI for the identity as it is now. A TOTP secret is offered fresh each time (kept
 * in the flow's internal context, never in the client's hands beyond the QR code and its text).
 */
export async function currentSettingsUi(ctx: IdentityContext, flowId: string, identityId: string) {
  const email = await identityEmail(ctx.db, identityId);
  let totp: TotpState = { linked: true };
  let context: Record<string, unknown> = {};
  if (!(await hasTotp(ctx.db, identityId))) {
    const secret = newTotpSecret();
    totp = { linked: false, secret, qrDataUrl: await totpQrDataUrl(totpUri('Meterway', email, secret)) };
    context = { totpSecret: secret };
  }
  return { ui: settingsUi(settingsAction(ctx, flowId), email, totp), context };
}

export async function createSettingsFlow(
  ctx: IdentityContext,
  input: { identityId: string; csrfToken: string; requestUrl: string; returnTo?: string | undefined; uiMessages?: UiText[] },
): Promise<Flow> {
  const id = randomUUID();
  const { ui, context } = await currentSettingsUi(ctx, id, input.identityId);
  return createFlow(ctx.db, {
    id,
    kind: 'settings',
    state: 'show_form',
    csrfToken: input.csrfToken,
    requestUrl: input.requestUrl,
    returnTo: input.returnTo,
    identityId: input.identityId,
    ui: () => withMessages(ui, input.uiMessages ?? []),
    context,
    now: ctx.clock.now(),
  });
}
