import { messages } from './messages.js';
import { csrfNode, input, submit, type Ui } from './ui-nodes.js';

/** Recovery flow UIs (identity-protocol.md §8): ask for the address, then for the e-mailed code. */
export const recoveryUi = {
  chooseMethod: (action: string, group: 'code' | 'link' = 'code'): Ui => ({
    action,
    method: 'POST',
    nodes: [
      csrfNode(''),
      input(group, 'email', 'email', { required: true, autocomplete: 'email', label: messages.email() }),
      submit(group, 'method', group, messages.continue()),
    ],
  }),
  codeSent: (action: string, email: string): Ui => ({
    action,
    method: 'POST',
    nodes: [
      csrfNode(''),
      input('code', 'code', 'text', { required: true, pattern: '[0-9]+', maxlength: 6, autocomplete: 'one-time-code', label: messages.recoveryCode() }),
      input('code', 'method', 'hidden', { value: 'code' }),
      submit('code', 'method', 'code', messages.continue()),
      submit('code', 'email', email, messages.resendCode()),
    ],
    messages: [messages.recoveryCodeSent()],
  }),
  linkSent: (action: string, email: string): Ui => ({
    action,
    method: 'POST',
    nodes: [
      csrfNode(''),
      input('link', 'email', 'email', { value: email, required: true, autocomplete: 'email', label: messages.email() }),
      submit('link', 'method', 'link', messages.continue()),
    ],
    messages: [messages.recoveryLinkSent()],
  }),
};
