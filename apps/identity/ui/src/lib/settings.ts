import { type SettingsFlow, SettingsFlowFromJSON, type UpdateSettingsFlowBody } from '@ory/client-fetch';
import { type IdentityFailure, errorId, isFlowBody, readFailure, redirectBrowserTo } from '@meterway/contracts';
import { errorText } from './error-text';
import { ory } from './ory';

/** Starting a settings flow in the browser; identity answers 303 to /ui/settings?flow=<new id>. */
export const settingsInitUrl = '/self-service/settings/browser';

export type SettingsResult =
  | { kind: 'flow'; flow: SettingsFlow }
  | { kind: 'navigate'; to: string }
  /** 403 session_refresh_required: the session is past the privileged window (§9.4). */
  | { kind: 'refresh-required' }
  | { kind: 'failed'; message: string };

export async function loadSettingsFlow(id: string, consoleUrl: string): Promise<SettingsResult> {
  try {
    return { kind: 'flow', flow: await ory.getSettingsFlow({ id }) };
  } catch (error) {
    return settingsFailure(await readFailure(error), consoleUrl);
  }
}

/** 200 is the new flow (state success); 400 is the flow with its messages: both re-render. */
export async function submitSettings(flowId: string, body: Record<string, unknown>, consoleUrl: string): Promise<SettingsResult> {
  try {
    const flow = await ory.updateSettingsFlow({ flow: flowId, updateSettingsFlowBody: body as unknown as UpdateSettingsFlowBody });
    return { kind: 'flow', flow };
  } catch (error) {
    const failure = await readFailure(error);
    if (failure.kind === 'response' && failure.status === 400 && isFlowBody(failure.body)) {
      return { kind: 'flow', flow: SettingsFlowFromJSON(failure.body) };
    }
    return settingsFailure(failure, consoleUrl);
  }
}

function settingsFailure(failure: IdentityFailure, consoleUrl: string): SettingsResult {
  if (failure.kind === 'network') return { kind: 'failed', message: errorText(failure) };
  const { status, body } = failure;
  // Settings 401s carry no error id (§16.4): key on the status.
  if (status === 401) return { kind: 'navigate', to: `${consoleUrl}/login` };
  if (status === 403 && errorId(body) === 'session_refresh_required') return { kind: 'refresh-required' };
  const redirect = redirectBrowserTo(body);
  if (status === 403 && redirect) return { kind: 'navigate', to: redirect };
  // Expired (410, no id on GET), unknown (404) or another identity's flow: start a fresh one.
  if (status === 404 || status === 410 || (status === 403 && errorId(body) === 'security_identity_mismatch')) {
    return { kind: 'navigate', to: settingsInitUrl };
  }
  return { kind: 'failed', message: errorText(failure) };
}
