import { messages } from './messages.js';
import { csrfNode, emailTraitNode, imageNode, input, submit, textNode, type Ui, type UiNode } from './ui-nodes.js';

export type TotpState = { linked: true } | { linked: false; secret: string; qrDataUrl: string };

/** The settings flow's form (identity-protocol.md §9.2): profile, password and TOTP groups. */
export function settingsUi(action: string, email: string, totp: TotpState): Ui {
  const totpNodes: UiNode[] = totp.linked
    ? [input('totp', 'totp_unlink', 'submit', { value: 'true', required: true, label: messages.unlinkTotp() })]
    : [
        textNode('totp', 'totp_secret_key', messages.totpSecret(totp.secret), messages.totpSecretLabel()),
        imageNode('totp', 'totp_qr', totp.qrDataUrl, messages.totpQrCode()),
        input('totp', 'totp_code', 'text', { required: true, label: messages.verifyCode() }),
        submit('totp', 'method', 'totp', messages.save()),
      ];
  return {
    action,
    method: 'POST',
    nodes: [
      csrfNode(''),
      emailTraitNode('profile', email),
      submit('profile', 'method', 'profile', messages.save()),
      input('password', 'password', 'password', { required: true, autocomplete: 'new-password', label: messages.password() }),
      submit('password', 'method', 'password', messages.save()),
      ...totpNodes,
    ],
  };
}
