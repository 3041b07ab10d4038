import type { Mail } from '@meterway/service';
import escapeHtml from 'escape-html';

const dollars = (nanos: bigint) => `$${(Number(nanos) / 1e9).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/** The mail that says an auto top-up charge failed and auto top-up is off, with the provider's reason. */
export function chargeFailedMail(input: {
  to: string;
  organizationName: string;
  amountNanos: bigint;
  reason: string;
  card: { brand: string; last4: string } | undefined;
  consoleUrl: string;
}): Mail {
  const card = input.card ? `the ${input.card.brand} card ending in ${input.card.last4}` : 'the saved card';
  const lines = [
    `The auto top-up of ${dollars(input.amountNanos)} for ${input.organizationName} could not charge ${card}: ${input.reason}`,
    'Auto top-up is now off. Save another card or add credit yourself, then turn auto top-up on again, so your keys keep answering.',
  ];
  const url = `${input.consoleUrl}/dashboard`;
  return {
    to: input.to,
    subject: `Auto top-up failed: ${dollars(input.amountNanos)} could not be charged`,
    template: 'auto-top-up-failed',
    link: url,
    text: `Hi,\n\n${lines.join('\n\n')}\n\nOpen your dashboard: ${url}\n`,
    html: `<!doctype html><html><body style="font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#212529;font-size:14px;line-height:1.5">
<p style="font-size:20px;font-weight:700;color:#228be6">Meterway</p>
${lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n')}
<p><a href="${escapeHtml(url)}" style="background:#228be6;color:#fff;padding:10px 16px;border-radius:4px;text-decoration:none;font-weight:600">Open your dashboard</a></p></body></html>`,
  };
}
