import { messages } from './messages.js';
import { csrfNode, input, submit, type Ui } from './ui-nodes.js';

/** Login flow UIs (identity-protocol.md §5.1): first factor, refresh, and the TOTP second factor. */
export const loginUi = {
  firstFactor: (action: string): Ui => ({
    action,
    method: 'POST',
    nodes: [
      csrfNode(''),
      input('default', 'identifier', 'text', { value: '', required: true, label: messages.emailTrait() }),
      input('password', 'password', 'password', { required: true, autocomplete: 'current-password', label: messages.password() }),
      submit('password', 'method', 'password', messages.signInWithPassword()),
    ],
  }),
  refresh: (action: string, identifier: string): Ui => ({
    action,
    method: 'POST',
    nodes: [
      csrfNode(''),
      input('default', 'identifier', 'hidden', { value: identifier, required: true, label: messages.emailTrait() }),
      input('password', 'password', 'password', { required: true, autocomplete: 'current-password', label: messages.password() }),
      submit('password', 'method', 'password', messages.signIn()),
    ],
    messages: [messages.confirmItIsYou()],
  }),
  /** After strangers' failures capped the identifier (issue #53): the code mailed to it, which the password sent before is judged with. */
  mailedCode: (action: string, identifier: string): Ui => ({
    action,
    method: 'POST',
    nodes: [
      csrfNode(''),
      input('default', 'identifier', 'hidden', { value: identifier, required: true, label: messages.emailTrait() }),
      input('code', 'code', 'text', { value: '', required: true, autocomplete: 'one-time-code', label: messages.loginCode() }),
      submit('code', 'method', 'code', messages.continue()),
    ],
    messages: [messages.loginCodeSent()],
  }),
  secondFactor: (action: string): Ui => ({
    action,
    method: 'POST',
    nodes: [
      csrfNode(''),
      input('totp', 'totp_code', 'text', { value: '', required: true, label: messages.authenticationCode() }),
      submit('totp', 'method', 'totp', messages.useAuthenticator()),
    ],
    messages: [messages.completeSecondFactor()],
  }),
};
