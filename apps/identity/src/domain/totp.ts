import { generateSecret, generateURI, verify } from 'otplib';
import QRCode from 'qrcode';

/** TOTP as Kratos configures it: SHA1, 6 digits, 30 s, a 160-bit secret. */
export const newTotpSecret = () => generateSecret({ length: 20 });

export const totpUri = (issuer: string, account: string, secret: string) => generateURI({ issuer, label: account, secret });

export const totpQrDataUrl = (uri: string) => QRCode.toDataURL(uri, { width: 256, margin: 1 });

/** Accepts the current code and its neighbours (±30 s), for clocks that drift a little. */
export async function verifyTotp(secret: string, token: string, now: Date): Promise<boolean> {
  if (!/^\d{6}$/.test(token)) return false;
  try {
    const result = await verify({ secret, token, epoch: Math.floor(now.getTime() / 1000), epochTolerance: 30 });
    return result.valid;
  } catch {
    return false;
  }
}
