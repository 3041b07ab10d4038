import { createHmac } from 'node:crypto';

/**
 * The Meterway-Signature header of a delivery: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`,
 * keyed with the endpoint's whole secret (`whsec_…`). The receiver checks it with
 * apps/api/examples/verify-webhook-signature.mjs.
 */
export function signatureHeader(secret: string, body: string, now: Date): string {
  const timestamp = Math.floor(now.getTime() / 1000);
  const signature = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `t=${timestamp},v1=${signature}`;
}
