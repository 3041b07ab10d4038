import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { meHandlers } from '../../../testing/me-handlers';
import { server } from '../../../testing/msw-server';
import { renderComponent } from '../../../testing/render';
import { CreditBalanceCard } from './credit-balance-card';

describe('CreditBalanceCard', () => {
  it('shows the paid and promotional parts of the balance and the last day of the next expiring grant', async () => {
    server.use(meHandlers.signedIn({ remainingSpendAmount: 42.5, promotionalCreditAmount: 12.3, nextCreditExpiry: '2027-01-01T00:00:00.000Z' }));
    renderComponent(<CreditBalanceCard />);

    expect(await screen.findByText('$42.50')).toBeInTheDocument();
    expect(screen.getByText('$30.20 paid · $12.30 promotional (used first)')).toBeInTheDocument();
    const lastDay = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date('2026-12-31T00:00:00.000Z'));
    expect(screen.getByText(`Promotional credit expires on ${lastDay} (end of day, UTC)`)).toBeInTheDocument();
  });

  it('shows the balance alone without promotional credit', async () => {
    server.use(meHandlers.signedIn({ remainingSpendAmount: 25 }));
    renderComponent(<CreditBalanceCard />);

    expect(await screen.findByText('$25.00')).toBeInTheDocument();
    expect(screen.queryByText(/promotional/i)).not.toBeInTheDocument();
  });

  it('shows a balance under $10 to the fraction of a cent, and every nano-dollar of it on hover', async () => {
    server.use(meHandlers.signedIn({ remainingSpendAmount: 9.996931234 }));
    renderComponent(<CreditBalanceCard />);

    expect(await screen.findByText('$9.9969')).toHaveAttribute('title', '$9.996931234');
  });
});
