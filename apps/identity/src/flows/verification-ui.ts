import { messages } from './messages.js';
import { anchorNode, csrfNode, input, submit, type Ui } from './ui-nodes.js';

/** The three states of a verification flow (identity-protocol.md §7.1). */
export const verificationUi = {
  chooseMethod: (action: string): Ui => ({
    action,
    method: 'POST',
    nodes: [
      csrfNode(''),
      input('code', 'email', 'email', { required: true, autocomplete: 'email', label: messages.email() }),
      submit('code', 'method', 'code', messages.continue()),
    ],
  }),
  sentEmail: (action: string, email: string): Ui => ({
    action,
    method: 'POST',
    nodes: [
      csrfNode(''),
      input('code', 'method', 'hidden', { value: 'code' }),
      input('code', 'code', 'text', { required: true, autocomplete: 'one-time-code', label: messages.verificationCode() }),
      submit('code', 'method', 'code', messages.continue()),
      submit('code', 'email', email, messages.resendCode()),
    ],
    messages: [messages.verificationCodeSent()],
  }),
  passedChallenge: (continueUrl: string): Ui => ({
    action: continueUrl,
    method: 'GET',
    nodes: [anchorNode('code', 'continue', continueUrl, messages.continue())],
    messages: [messages.verified()],
  }),
};
