import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export type CaughtMail = { to: string[]; raw: string };

/** A real SMTP server on a free port that keeps every message it receives (tests only). */
export async function startMailCatcher() {
  const mails: CaughtMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()), raw });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const mailsTo = (address: string) => mails.filter((mail) => mail.to.includes(address.toLowerCase()));
  return {
    url: `smtp://127.0.0.1:${port}`,
    mailsTo,
    /** Waits for the n-th mail to `address` (1-based) and returns it. */
    async waitForMail(address: string, count = 1, timeoutMs = 5000): Promise<CaughtMail> {
      const deadline = Date.now() + timeoutMs;
      while (mailsTo(address).length < count) {
        if (Date.now() > deadline) throw new Error(`no mail #${count} to ${address}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return mailsTo(address)[count - 1] as CaughtMail;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The mail's text with quoted-printable soft breaks and escapes undone. */
export function decodedText(mail: CaughtMail): string {
  return mail.raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

const decodeQ = (text: string) =>
  Buffer.from(
    text.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
    'latin1',
  ).toString('utf8');

/** The mail's Subject header, unfolded, with RFC 2047 encoded words decoded. */
export function subjectOf(mail: CaughtMail): string {
  const headers = mail.raw.split(/\r?\n\r?\n/)[0] ?? '';
  const folded = headers.match(/^Subject:(.*(?:\r?\n[ \t].*)*)/im)?.[1] ?? '';
  return folded
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/\r?\n[ \t]/g, ' ')
    .replace(/=\?[^?]+\?([BQ])\?([^?]*)\?=/gi, (_, encoding: string, text: string) =>
      encoding.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : decodeQ(text),
    )
    .trim();
}
