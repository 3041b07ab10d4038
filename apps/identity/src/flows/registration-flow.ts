import type { IdentityContext } from '../context.js';
import type { FlowRequest } from './flow-request.js';
import { createFlow, type Flow, flowUi, updateFlow } from './flow-store.js';
import { messages, type UiText } from './messages.js';
import type { Outcome } from './outcome.js';
import { attachMessage, clearMessages, csrfNode, emailTraitNode, input, setValue, submit, type Ui, withMessages } from './ui-nodes.js';

const registrationUi = (ctx: IdentityContext, id: string): Ui => ({
  action: `${ctx.config.identityUrl}/self-service/registration?flow=${id}`,
  method: 'POST',
  nodes: [
    csrfNode(''),
    emailTraitNode('default'),
    input('password', 'password', 'password', { required: true, autocomplete: 'new-password', label: messages.password() }),
    submit('password', 'method', 'password', messages.signUp()),
  ],
});

export const createRegistrationFlow = (ctx: IdentityContext, req: FlowRequest, returnTo: string | undefined, uiMessages: UiText[] = []) =>
  createFlow(ctx.db, {
    kind: 'registration',
    state: 'choose_method',
    csrfToken: req.cookies.ensureCsrf(),
    requestUrl: req.url,
    returnTo,
    ui: (id) => withMessages(registrationUi(ctx, id), uiMessages),
    now: ctx.clock.now(),
  });

/** The flow with `ui` (400 for API clients); browsers go back to the form with a 302, as Kratos sends them. */
export async function showRegistration(ctx: IdentityContext, flow: Flow, ui: Ui): Promise<Outcome> {
  const updated = await updateFlow(ctx.db, flow, { ui }, ctx.clock.now());
  return { kind: 'render', flow: updated, status: 400, screen: ctx.config.ui.registration, screenStatus: 302, csrf: 'caller' };
}

/** The form again with `problems`, showing the address typed and never the password. */
export function rejectRegistration(ctx: IdentityContext, flow: Flow, rawEmail: string | undefined, problems: { node?: string; message: UiText }[]) {
  let ui = clearMessages(flowUi(flow));
  ui = { ...ui, nodes: setValue(setValue(ui.nodes, 'traits.email', rawEmail), 'password', undefined) };
  for (const problem of problems) {
    if (problem.node) ui = { ...ui, nodes: attachMessage(ui.nodes, problem.node, problem.message) };
    else ui = { ...ui, messages: [...(ui.messages ?? []), problem.message] };
  }
  return showRegistration(ctx, flow, ui);
}
