import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Checks a Meterway webhook delivery: `rawBody` is the request body exactly as received (a string
 * or Buffer, before any JSON parsing), `header` the Meterway-Signature header, `secret` the
 * endpoint's signing secret (whsec_…). True only if the signature matches and its timestamp is
 * within `toleranceSeconds` (300) of now, so a captured delivery cannot be replayed later.
 */
export function verifyWebhookSignature(rawBody, header, secret, { toleranceSeconds = 300, now = Date.now() } = {}) {
  const parts = Object.fromEntries(
    String(header ?? '')
      .split(',')
      .map((part) => part.trim().split('=')),
  );
  const timestamp = Number(parts.t);
  if (!Number.isInteger(timestamp) || !/^[0-9a-f]{64}$/.test(parts.v1 ?? '')) return false;
  if (Math.abs(now / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(parts.v1, 'hex'));
}
