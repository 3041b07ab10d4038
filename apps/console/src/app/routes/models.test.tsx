import type { Role } from '@meterway/contracts';
import { screen, within } from '@testing-library/react';
import { beforeAll, describe, expect, it } from 'vitest';
import { keysHandlers, pricedModels, priceListVersion } from '../../testing/keys-handlers';
import { meHandlers } from '../../testing/me-handlers';
import { server } from '../../testing/msw-server';
import { renderRoute } from '../../testing/render';
import { webhooksHandlers } from '../../testing/webhooks-handlers';

// Issue #24: each model's prices per 1M tokens and limits, under the price list's version.

beforeAll(() => Promise.all([import('./app-layout'), import('./models'), import('./webhooks')]), 30_000);

const signedInAs = (role: Role) => meHandlers.signedIn({ role, organizations: [{ organizationId: 'org_01', organizationName: 'Analytical Engines', role }] });

const modelsTable = async () => within(await screen.findByRole('table', { name: 'Models' }));
const cellsOf = (row: HTMLElement) =>
  within(row)
    .getAllByRole('cell')
    .map((cell) => cell.textContent);
const toast = (title: 'Wooops!' | 'Success!') => screen.findByText(title).then((element) => element.closest('.mantine-Notification-root') as HTMLElement);

describe('/models', { timeout: 20_000 }, () => {
  it('lists each model with its prices per 1M tokens, its output limit and whether it takes images, under the price list version', async () => {
    server.use(signedInAs('owner'), keysHandlers.models());
    renderRoute('/models');

    const table = await modelsTable();
    const row = (id: string) => table.getByText(id).closest('tr') as HTMLElement;
    await table.findByText('gpt-4o-mini');
    expect(cellsOf(row('gpt-4o-mini'))).toEqual(['gpt-4o-mini', '$0.165', '$0.0825', '$0.66', '16,384', 'Yes']);
    expect(cellsOf(row('demo-echo'))).toEqual(['demo-echo', '$0.11', 'Same as input', '$0.22', '4,096', 'No']);
    expect(table.getAllByRole('row')).toHaveLength(pricedModels.length + 1);
    expect(screen.getByText(`Prices as of ${priceListVersion}.`)).toBeInTheDocument();
    expect(screen.getByText(/A price change applies to new calls only: each call keeps the price list version it was priced with\./)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'docs' })).toHaveAttribute('href', 'http://localhost:8080/docs#models');
  });

  it.each<Role>(['developer', 'billing'])('is open to a %s, from the nav', async (role) => {
    server.use(signedInAs(role), keysHandlers.models(), webhooksHandlers.list([]));
    const { user } = renderRoute('/webhooks');

    await user.click(await within(await screen.findByRole('navigation', { name: 'Main' })).findByRole('link', { name: 'Models' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Models' })).toBeInTheDocument();
    expect(within(screen.getByRole('navigation', { name: 'Main' })).getByRole('link', { name: 'Models' })).toHaveAttribute('aria-current', 'page');
    expect(await (await modelsTable()).findByText('claude-haiku')).toBeInTheDocument();
  });

  it('shows Loading... until the list arrives', async () => {
    let release = () => {};
    server.use(signedInAs('owner'), keysHandlers.models(pricedModels, { until: new Promise<void>((resolve) => (release = resolve)) }));
    renderRoute('/models');

    expect(await (await modelsTable()).findByText('Loading...')).toBeInTheDocument();
    release();
    expect(await (await modelsTable()).findByText('gpt-4o-mini')).toBeInTheDocument();
  });

  it('says when no model is priced', async () => {
    server.use(signedInAs('owner'), keysHandlers.models([]));
    renderRoute('/models');

    expect(await (await modelsTable()).findByText('No models are priced yet')).toBeInTheDocument();
  });

  it("shows 'Failed to load models' in the table and a 'Wooops!' toast", async () => {
    server.use(signedInAs('owner'), keysHandlers.modelsFailure(500));
    renderRoute('/models');

    expect(within(await toast('Wooops!')).getByText('Failed to load models')).toBeInTheDocument();
    expect((await modelsTable()).getByText('Failed to load models')).toBeInTheDocument();
  });
});
