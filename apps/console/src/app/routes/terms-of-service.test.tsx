import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderRoute } from '../../testing/render';

describe('/terms-of-service', () => {
  it('shows the terms to anyone, without asking identity who they are', async () => {
    renderRoute('/terms-of-service');

    expect(await screen.findByRole('heading', { level: 1, name: 'Terms of service' })).toBeInTheDocument();
    for (const section of ['3. Prepaid credit', '4. Publishable keys', '5. Acceptable use', '6. Refunds of unused credit', '8. Liability', '10. Contact']) {
      expect(screen.getByRole('heading', { level: 2, name: section })).toBeInTheDocument();
    }
    expect(screen.getByRole('link', { name: 'support@meterway.dev' })).toHaveAttribute('href', 'mailto:support@meterway.dev');
  });

  it('holds the privacy policy the signup form links to (#privacy)', async () => {
    renderRoute('/terms-of-service');

    const privacy = await screen.findByRole('region', { name: '7. Privacy' });
    expect(privacy).toHaveAttribute('id', 'privacy');
  });
});
