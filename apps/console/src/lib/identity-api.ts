import { Configuration, FrontendApi } from '@ory/client-fetch';
import { runtimeConfig } from '../config/runtime-config';
import { errorReason, type FlowLike, flowMessages, type IdentityFailure, isFlowBody, readFailure } from './identity-flow';
import { logger } from './logger';

// The SDK plumbing under identity-client.ts: its configuration, the texts, and how a failed call
// becomes messages. Kept apart so the client file holds only the operations.

/** The wrapper errors and matched texts of spec §5 and §8, word for word. */
export const identityTexts = {
  createLoginFlowFailed: 'ory.createBrowserLoginFlow failed',
  createRegistrationFlowFailed: 'ory.createBrowserRegistrationFlow failed',
  createSettingsFlowFailed: 'ory.createBrowserSettingsFlow failed',
  createLogoutFlowFailed: 'ory.createBrowserLogoutFlow failed',
  // Spec §8 gives a failed recovery-flow creation the logout text ("also on a recovery-flow
  // failure"). Odd, but that is what it says.
  createRecoveryFlowFailed: 'ory.createBrowserLogoutFlow failed',
  // Not named by the spec; same pattern as the others.
  createVerificationFlowFailed: 'ory.createBrowserVerificationFlow failed',
  logoutFailed: 'ory.logout failed',
  noFlowId: 'No flow id',
  noVerificationFlow: 'No verification flow found',
  settingsFlowFailed: 'Failed to create settings flow',
  weakPassword: 'The password can not be used',
  unreachable: 'The identity service could not be reached. Please try again.',
} as const;

let cached: { basePath: string; api: FrontendApi } | undefined;

/** Identity base URL from the runtime config, without a trailing slash. */
export const identityBase = (): string => runtimeConfig().identityUrl.replace(/\/+$/, '');

/**
 * The SDK, configured as identity-protocol.md §0 demands: without `Accept: application/json` the
 * flow endpoints answer 303 redirects, and without `credentials: 'include'` no cookie travels.
 */
export function identityApi(): FrontendApi {
  const basePath = identityBase();
  if (cached?.basePath !== basePath) {
    const configuration = new Configuration({ basePath, credentials: 'include', headers: { Accept: 'application/json' } });
    cached = { basePath, api: new FrontendApi(configuration) };
  }
  return cached.api;
}

/** Creates a flow, or throws the §8 wrapper error (the cause kept, the detail logged). */
export async function createFlow<T>(create: (api: FrontendApi) => Promise<T>, message: string): Promise<T> {
  try {
    return await create(identityApi());
  } catch (error) {
    logger.warn(message, await readFailure(error));
    throw new Error(message, { cause: error });
  }
}

/**
 * The texts of a failed submit: the flow's error messages (a 400 flow), else the envelope's reason,
 * else a plain sentence. A failure that is not a flow is unexpected, so it is logged (§8).
 */
export function failureMessages(failure: IdentityFailure, operation: string): string[] {
  if (failure.kind === 'response' && isFlowBody(failure.body)) {
    const errors = flowMessages(failure.body, 'error');
    const messages = errors.length > 0 ? errors : flowMessages(failure.body);
    if (messages.length > 0) return messages;
  }
  logger.warn(`identity ${operation} failed`, failure);
  if (failure.kind === 'network') return [identityTexts.unreachable];
  return [errorReason(failure.body) ?? `The identity service answered ${failure.status}.`];
}

/** The errors of a flow answered with 200, or all its messages when none is typed error. */
export function flowFailureMessages(flow: FlowLike): string[] {
  const errors = flowMessages(flow, 'error');
  return errors.length > 0 ? errors : flowMessages(flow);
}
