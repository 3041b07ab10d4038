import type { UiText } from '@ory/client-fetch';

/**
 * What a person reads for a flow message. The JSON keeps Kratos' texts for SDK clients; a few of
 * them name things this service does not have, so the page says what fits here instead.
 */
export function messageText(message: UiText): string {
  // 1060001 suggests "an alternative login method (e.g. social sign in)", which does not exist here.
  if (message.id === 1060001) {
    const minutes = /within the next ([\d.]+) minutes/.exec(message.text)?.[1];
    if (minutes) return `You recovered your account. Choose a new password within the next ${Math.round(Number(minutes))} minutes.`;
  }
  return message.text;
}
