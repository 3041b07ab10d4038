import escapeHtml from 'escape-html';
import type { Mail } from './mailer.js';

function layout(title: string, body: string): string {
  return `<!doctype html><html><body style="margin:0;background:#f1f3f5;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#212529">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center" style="padding:32px 16px">
<table role="presentation" width="480" cellpadding="0" cellspacing="0" style="background:#fff;border-radius:8px;padding:32px">
<tr><td style="font-size:20px;font-weight:700;color:#228be6;padding-bottom:16px">Meterway</td></tr>
<tr><td style="font-size:16px;font-weight:600;padding-bottom:12px">${escapeHtml(title)}</td></tr>
<tr><td style="font-size:14px;line-height:1.5">${body}</td></tr>
</table></td></tr></table></body></html>`;
}

const codeBlock = (code: string) =>
  `<p style="font-size:28px;letter-spacing:6px;font-weight:700;font-family:ui-monospace,monospace;margin:16px 0">${escapeHtml(code)}</p>`;

type CodeMailTexts = {
  template: Mail['template'];
  subject: string;
  heading: string;
  /** Completes "please … by entering the following code" and "Enter this code to …". */
  purpose: string;
  ifNotYou: string;
};

function codeMail(to: string, code: string, { template, subject, heading, purpose, ifNotYou }: CodeMailTexts): Mail {
  const validity = `The code is valid for one hour. ${ifNotYou}`;
  return {
    to,
    template,
    code,
    subject,
    text: `Hi,\n\nplease ${purpose} by entering the following code:\n\n${code}\n\n${validity}\n`,
    html: layout(heading, `<p>Enter this code to ${purpose}:</p>${codeBlock(code)}<p style="color:#868e96">${validity}</p>`),
  };
}

export const verificationCodeMail = (to: string, code: string) =>
  codeMail(to, code, {
    template: 'verification_code',
    subject: 'Please verify your email address',
    heading: 'Verify your email address',
    purpose: 'verify your account',
    ifNotYou: 'If you did not sign up for Meterway, ignore this e-mail.',
  });

export const recoveryCodeMail = (to: string, code: string) =>
  codeMail(to, code, {
    template: 'recovery_code',
    subject: 'Recover access to your account',
    heading: 'Recover access to your account',
    purpose: 'recover access to your account',
    ifNotYou: 'If you did not ask for this, ignore this e-mail: your password stays as it is.',
  });

/** Mailed when strangers' failed sign-ins capped the address (issue #53): the owner's right password goes on with it. */
export const loginCodeMail = (to: string, code: string) =>
  codeMail(to, code, {
    template: 'login_code',
    subject: 'Your sign-in code',
    heading: 'Your sign-in code',
    purpose: 'finish signing in',
    ifNotYou:
      'We ask for it because many sign-ins to your account failed from other browsers. If you are not signing in, ignore this e-mail; if you think someone knows your password, change it.',
  });

export function recoveryLinkMail(to: string, link: string): Mail {
  return {
    to,
    template: 'recovery_link',
    link,
    subject: 'Recover access to your account',
    text: `Hi,\n\nplease recover access to your account by opening the following link:\n\n${link}\n\nThe link is valid for one hour. If you did not ask for this, ignore this e-mail: your password stays as it is.\n`,
    html: layout(
      'Recover access to your account',
      `<p>Open this link to recover access to your account and choose a new password:</p><p style="margin:16px 0"><a href="${escapeHtml(link)}" style="background:#228be6;color:#fff;padding:10px 16px;border-radius:4px;text-decoration:none;font-weight:600">Recover my account</a></p><p style="color:#868e96;word-break:break-all">${escapeHtml(link)}</p><p style="color:#868e96">The link is valid for one hour. If you did not ask for this, ignore this e-mail.</p>`,
    ),
  };
}

/**
 * A notice of a change to the account (ASVS 2.5.5, 3.7.1): it carries no code or link that grants
 * anything, only where to recover the account if the change was not the owner's.
 */
function changeNotice(to: string, template: Mail['template'], subject: string, what: string, recoveryUrl: string): Mail {
  const ifNotYou = `If you did not make this change, recover your account now: ${recoveryUrl}`;
  return {
    to,
    template,
    subject,
    text: `Hi,\n\n${what}\n\n${ifNotYou}\n`,
    html: layout(
      subject,
      `<p>${escapeHtml(what)}</p><p style="color:#868e96">If you did not make this change, <a href="${escapeHtml(recoveryUrl)}">recover your account</a> now.</p>`,
    ),
  };
}

export const passwordChangedMail = (to: string, recoveryUrl: string) =>
  changeNotice(to, 'password_changed', 'Your password was changed', 'The password of your Meterway account was just changed.', recoveryUrl);

/** Goes to the address being replaced, so its owner hears of the change. */
export const emailChangedMail = (oldAddress: string, newAddress: string, recoveryUrl: string) =>
  changeNotice(
    oldAddress,
    'email_changed',
    'Your e-mail address was changed',
    `The e-mail address of your Meterway account was just changed from ${oldAddress} to ${newAddress}; this address no longer signs in.`,
    recoveryUrl,
  );

export const totpRemovedMail = (to: string, recoveryUrl: string) =>
  changeNotice(
    to,
    'totp_removed',
    'Your second factor was removed',
    'The authenticator app was just unlinked from your Meterway account: signing in now needs only the password.',
    recoveryUrl,
  );
