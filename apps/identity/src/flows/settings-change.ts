import type { IdentityContext } from '../context.js';
import { serializeIdentity } from '../domain/identities.js';
import { isPrivileged, type Session } from '../domain/sessions.js';
import { errors } from './errors.js';
import type { FlowRequest } from './flow-request.js';
import { type Flow, flowUi, serializeFlow, updateFlow } from './flow-store.js';
import { withFlowParam } from './flow-urls.js';
import { messages, type UiText } from './messages.js';
import { failure, type Outcome } from './outcome.js';
import { currentSettingsUi } from './settings.js';
import { attachMessage, clearMessages, setValue, withMessages } from './ui-nodes.js';

/** One submission to a settings flow the caller's session owns. */
export type SettingsChange = { ctx: IdentityContext; req: FlowRequest; flow: Flow; session: Session; now: Date };

/** What settings flows carry beside the flow itself: the identity, and what to do next. */
export const settingsExtra = (ctx: IdentityContext, flow: Flow, continueWith?: unknown[]) => async () => ({
  identity: await serializeIdentity(ctx.db, flow.identityId ?? '', ctx.config.identityUrl),
  ...(continueWith ? { continue_with: continueWith } : {}),
});

/** The flow again with `problems` (400 for API clients), the password emptied. */
export async function rejectSettings({ ctx, flow, now }: SettingsChange, problems: { node?: string; message: UiText }[]): Promise<Outcome> {
  let ui = clearMessages(flowUi(flow));
  ui = { ...ui, nodes: setValue(ui.nodes, 'password', undefined) };
  for (const problem of problems) {
    ui = problem.node
      ? { ...ui, nodes: attachMessage(ui.nodes, problem.node, problem.message) }
      : { ...ui, messages: [...(ui.messages ?? []), problem.message] };
  }
  const updated = await updateFlow(ctx.db, flow, { ui }, now);
  return { kind: 'render', flow: updated, status: 400, screen: ctx.config.ui.settings, csrf: 'flow', extra: settingsExtra(ctx, updated) };
}

/** Protected changes need a recent login: the client re-authenticates, then submits again. */
export function privilegeMissing({ ctx, flow, session, now }: SettingsChange): Outcome | undefined {
  if (isPrivileged(session, now)) return undefined;
  const back = encodeURIComponent(`${ctx.config.identityUrl}/self-service/settings?flow=${flow.id}`);
  return failure(errors.sessionRefreshRequired(`${ctx.config.identityUrl}/self-service/login/browser?refresh=true&return_to=${back}`));
}

/** Saved: the flow shows the identity as it now is, and the caller goes on to `return_to` or back to settings. */
export async function settingsSaved({ ctx, flow, session, now }: SettingsChange, continueWith: unknown[] = []): Promise<Outcome> {
  const { ui, context } = await currentSettingsUi(ctx, flow.id, session.identityId);
  const updated = await updateFlow(ctx.db, flow, { state: 'success', ui: withMessages(ui, [messages.settingsSaved()]), context }, now);
  const redirectTo = flow.returnTo ?? withFlowParam(ctx.config.ui.settings, flow.id);
  const extra = settingsExtra(ctx, updated, [...continueWith, { action: 'redirect_browser_to', redirect_browser_to: redirectTo }]);
  return { kind: 'success', redirectTo, body: async () => serializeFlow(updated, await extra()) };
}
