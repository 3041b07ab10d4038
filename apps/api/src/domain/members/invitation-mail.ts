import type { Mail, Mailer } from '@meterway/service';
import escapeHtml from 'escape-html';
import { AppError } from '../../errors/app-error.js';

export type InvitationMailDeps = {
  mailer: Mailer;
  consoleUrl: string;
  /** Told why a mail could not be sent (the answer to the person only says it was not). */
  onMailError?: (error: unknown) => void;
};

/** The stored invitation's part a mail names. */
type StoredInvitation = { id: string; email: string; role: string; expiresAt: Date };

type InvitationLetter = { to: string; inviterEmail: string; organizationName: string; role: string; token: string; expiresAt: Date };

const roleWithArticle = (role: string) => (/^[aeiou]/.test(role) ? `an ${role}` : `a ${role}`);
const dayOf = (date: Date) => date.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

export function invitationMail(input: InvitationLetter & { consoleUrl: string }): Mail {
  const link = `${input.consoleUrl}/invitations/${input.token}`;
  const lines = [
    `${input.inviterEmail} invited you to join ${input.organizationName} on Meterway as ${roleWithArticle(input.role)}.`,
    `The link works until ${dayOf(input.expiresAt)} (${input.expiresAt.toISOString().slice(11, 16)} UTC). Sign in or sign up with this address, ${input.to}, to accept.`,
  ];
  return {
    to: input.to,
    subject: `${input.inviterEmail} invited you to join ${input.organizationName} on Meterway as ${roleWithArticle(input.role)}`,
    template: 'invitation',
    link,
    text: `Hi,\n\n${lines.join('\n\n')}\n\nAccept the invitation: ${link}\n\nIf you did not expect this invitation, you can ignore this mail.\n`,
    html: `<!doctype html><html><body style="font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#212529;font-size:14px;line-height:1.5">
<p style="font-size:20px;font-weight:700;color:#228be6">Meterway</p>
${lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n')}
<p><a href="${escapeHtml(link)}" style="background:#228be6;color:#fff;padding:10px 16px;border-radius:4px;text-decoration:none;font-weight:600">Accept the invitation</a></p>
<p style="color:#868e96">If you did not expect this invitation, you can ignore this mail.</p></body></html>`,
  };
}

/**
 * Mails the link once the invitation is stored. A failure answers 503 and leaves the invitation
 * pending, so Resend (a new link) can try again; the invitation is never half made.
 */
export async function sendInvitationMail(
  deps: InvitationMailDeps,
  { invitation, inviter, token }: { invitation: StoredInvitation; inviter: { email: string; organizationName: string }; token: string },
): Promise<void> {
  const letter = { ...invitation, to: invitation.email, inviterEmail: inviter.email, organizationName: inviter.organizationName, token };
  try {
    await deps.mailer.send(invitationMail({ ...letter, consoleUrl: deps.consoleUrl }));
  } catch (error) {
    deps.onMailError?.(error);
    throw new AppError('ServiceUnavailable', `The invitation to ${invitation.email} is saved, but its e-mail could not be sent. Resend it in a moment.`, {
      invitationId: invitation.id,
    });
  }
}
