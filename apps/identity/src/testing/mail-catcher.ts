import { type CaughtMail, decodedText } from '@meterway/service/mail-catcher';

export { type CaughtMail, decodedText, startMailCatcher, subjectOf } from '@meterway/service/mail-catcher';

/** The 6-digit code in a mail's plain-text part. */
export function codeIn(mail: CaughtMail): string {
  const code = mail.raw.match(/\n(\d{6})\r?\n/)?.[1];
  if (!code) throw new Error(`no code in mail:\n${mail.raw}`);
  return code;
}

/** The first link to the identity service in a mail. */
export function linkIn(mail: CaughtMail): string {
  const link = decodedText(mail).match(/http:\/\/127\.0\.0\.1:\d+\/self-service\/[^\s"<>]+/)?.[0];
  if (!link) throw new Error(`no link in mail:\n${mail.raw}`);
  return link.replaceAll('&amp;', '&');
}
