import { generateSecret, generateURI, verify } from 'otplib';
import QRCode from 'qrcode';

/** TOTP as Kratos configures it: SHA1, 6 digits, 30 s, a 160-bit secret. */
export const newTotpSecret = () => generateSecret({ length: 20 });

export const totpUri = (issuer: string, account: string, secret: string) => generateURI({ issuer, label: account, secret });

export const totpQrDataUrl = (uri: string) => QRCode.toDataURL(uri, { width: 256, margin: 1 });

/**
 * The time step a code matches: the current one or its neighbours (±30 s), for clocks that drift a
 * little; only steps after `afterStep` count, so a code that was used once is not taken again.
 */
export async function matchTotp(secret: string, token: string, now: Date, afterStep?: number | null): Promise<number | undefined> {
  if (!/^\d{6}$/.test(token)) return undefined;
  try {
    const result = await verify({
      secret,
      token,
      epoch: Math.floor(now.getTime() / 1000),
      epochTolerance: 30,
      ...(afterStep === null || afterStep === undefined ? {} : { afterTimeStep: afterStep }),
    });
    // verify() answers for HOTP too; only a TOTP result carries the step.
    return result.valid && 'timeStep' in result ? result.timeStep : undefined;
  } catch {
    return undefined;
  }
}
