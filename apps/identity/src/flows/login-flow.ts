import type { IdentityContext } from '../context.js';
import { findCredential } from '../domain/identities.js';
import type { Session } from '../domain/sessions.js';
import type { FlowRequest } from './flow-request.js';
import { createFlow, type Flow, flowUi, updateFlow } from './flow-store.js';
import { loginUi } from './login-ui.js';
import type { UiText } from './messages.js';
import type { Outcome } from './outcome.js';
import { attachMessage, clearMessages, setValue, withMessages } from './ui-nodes.js';

export type LoginOptions = { returnTo?: string | undefined; refresh?: boolean; aal: 'aal1' | 'aal2'; identifier?: string | undefined; uiMessages?: UiText[] };

export type Problem = { node?: string; message: UiText };

export const loginAction = (ctx: IdentityContext, id: string) => `${ctx.config.identityUrl}/self-service/login?flow=${id}`;

/** The screen that shows a login flow: the second factor has its own. */
export const loginScreen = (ctx: IdentityContext, flow: Flow) => (flow.requestedAal === 'aal2' ? ctx.config.ui.secondFactor : ctx.config.ui.login);

export const createLoginFlow = (ctx: IdentityContext, req: FlowRequest, options: LoginOptions) =>
  createFlow(ctx.db, {
    kind: 'login',
    state: 'choose_method',
    csrfToken: req.cookies.ensureCsrf(),
    requestUrl: req.url,
    returnTo: options.returnTo,
    requestedAal: options.aal,
    refresh: options.refresh ?? false,
    ui: (id) => {
      const ui =
        options.aal === 'aal2'
          ? loginUi.secondFactor(loginAction(ctx, id))
          : options.refresh && options.identifier
            ? loginUi.refresh(loginAction(ctx, id), options.identifier)
            : loginUi.firstFactor(loginAction(ctx, id));
      return options.uiMessages?.length ? withMessages(ui, [...(ui.messages ?? []), ...options.uiMessages]) : ui;
    },
    now: ctx.clock.now(),
  });

/** The flow again with `problems` (400 for API clients), the password emptied. */
export async function rejectLogin(ctx: IdentityContext, flow: Flow, session: Session | undefined, problems: Problem[], identifier?: string): Promise<Outcome> {
  let ui = clearMessages(flowUi(flow));
  // Whoever holds a flow id may submit to it: the answer shows what this caller typed (on a
  // refresh, its own identifier), never what the flow's owner typed before.
  const shown = flow.refresh ? session && (await findCredential(ctx.db, session.identityId, 'password'))?.identifier : identifier;
  ui = { ...ui, nodes: setValue(setValue(ui.nodes, 'password', undefined), 'identifier', shown) };
  for (const problem of problems) {
    ui = problem.node
      ? { ...ui, nodes: attachMessage(ui.nodes, problem.node, problem.message) }
      : { ...ui, messages: [...(ui.messages ?? []), problem.message] };
  }
  const updated = await updateFlow(ctx.db, flow, { ui }, ctx.clock.now());
  return { kind: 'render', flow: updated, status: 400, screen: loginScreen(ctx, flow), csrf: 'caller' };
}
