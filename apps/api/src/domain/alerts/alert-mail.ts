import type { Mail } from '@meterway/service';
import escapeHtml from 'escape-html';

const dollars = (nanos: bigint) => `$${(Number(nanos) / 1e9).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

function mail(to: string, subject: string, lines: string[], action: { label: string; url: string }): Mail {
  return {
    to,
    subject,
    template: 'alert',
    link: action.url,
    text: `Hi,\n\n${lines.join('\n\n')}\n\n${action.label}: ${action.url}\n\nYou can change these alerts on your dashboard.\n`,
    html: `<!doctype html><html><body style="font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#212529;font-size:14px;line-height:1.5">
<p style="font-size:20px;font-weight:700;color:#228be6">Meterway</p>
${lines.map((line) => `<p>${escapeHtml(line)}</p>`).join('\n')}
<p><a href="${escapeHtml(action.url)}" style="background:#228be6;color:#fff;padding:10px 16px;border-radius:4px;text-decoration:none;font-weight:600">${escapeHtml(action.label)}</a></p>
<p style="color:#868e96">You can change these alerts on your dashboard.</p></body></html>`,
  };
}

export function lowBalanceMail(input: { to: string; organizationName: string; balanceNanos: bigint; thresholdNanos: bigint; consoleUrl: string }): Mail {
  return mail(
    input.to,
    `Your Meterway balance is below ${dollars(input.thresholdNanos)}`,
    [
      `The credit balance of ${input.organizationName} fell below ${dollars(input.thresholdNanos)}: it is now ${dollars(input.balanceNanos)}.`,
      'When it reaches $0.00, your keys stop answering. Add credit to keep them running.',
    ],
    { label: 'Add credit', url: `${input.consoleUrl}/add-credits` },
  );
}

export function keyBudgetMail(input: {
  to: string;
  keyName: string;
  percent: number;
  spentNanos: bigint;
  budgetNanos: bigint;
  month: string;
  consoleUrl: string;
}): Mail {
  const reached = input.percent >= 100 ? 'used its whole monthly budget' : `reached ${input.percent}% of its monthly budget`;
  return mail(
    input.to,
    `Key "${input.keyName}" ${reached}`,
    [
      `The key "${input.keyName}" ${reached}: it spent ${dollars(input.spentNanos)} of ${dollars(input.budgetNanos)} in ${input.month} (UTC).`,
      input.percent >= 100
        ? 'It refuses further calls until the month ends or you raise its budget.'
        : 'At 100% it refuses further calls until the month ends or you raise its budget.',
    ],
    { label: 'Review your keys', url: `${input.consoleUrl}/dashboard` },
  );
}
