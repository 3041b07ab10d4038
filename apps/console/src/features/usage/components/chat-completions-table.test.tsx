import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { buildChatCompletion, listsHandlers, pageOf } from '../../../testing/lists-handlers';
import { server } from '../../../testing/msw-server';
import { renderComponent } from '../../../testing/render';
import { ChatCompletionsTable } from './chat-completions-table';

// Who made each call (issue #18): the end user of the key's token and the caller's network, never its full address.

const cellsUnder = (header: string) => {
  const table = screen.getByRole('table', { name: 'Chat completions' });
  const column = within(table)
    .getAllByRole('columnheader')
    .findIndex((th) => th.textContent === header);
  return within(table)
    .getAllByRole('row')
    .slice(1)
    .map((row) => within(row).getAllByRole('cell')[column]?.textContent);
};

describe('ChatCompletionsTable: end user and network', () => {
  it('shows the end user and the network of each call, and a dash where there is none', async () => {
    server.use(
      listsHandlers.chatCompletions(
        pageOf([
          buildChatCompletion({ id: 'signed-in', endUser: 'user_42', clientNetwork: '203.0.113.0/24' }),
          buildChatCompletion({ id: 'anonymous', endUser: null, clientNetwork: '2001:db8:1::/48' }),
          buildChatCompletion({ id: 'older', endUser: null, clientNetwork: null }),
        ]),
      ),
    );
    renderComponent(<ChatCompletionsTable />);

    expect(await screen.findByText('signed-in')).toBeInTheDocument();
    expect(
      within(screen.getByRole('table', { name: 'Chat completions' }))
        .getAllByRole('columnheader')
        .map((th) => th.textContent),
    ).toEqual(expect.arrayContaining(['Model', 'End user', 'Network']));
    expect(cellsUnder('End user')).toEqual(['user_42', '—', '—']);
    expect(cellsUnder('Network')).toEqual(['203.0.113.0/24', '2001:db8:1::/48', '—']);
  });
});

// Issue #24: a call answered from the key's response cache cost nothing; the row says why.
describe('ChatCompletionsTable: cache hits', () => {
  it('marks a cache hit under its total, and no other row', async () => {
    server.use(
      listsHandlers.chatCompletions(
        pageOf([
          buildChatCompletion({ id: 'hit', cacheHit: true, provider: null, inputCost: 0, outputCost: 0, totalCost: 0 }),
          buildChatCompletion({ id: 'miss', cacheHit: false }),
        ]),
      ),
    );
    renderComponent(<ChatCompletionsTable />);

    expect(await screen.findByText('hit')).toBeInTheDocument();
    expect(screen.getAllByText('Cache hit')).toHaveLength(1);
    expect(cellsUnder('Total cost')).toEqual(['$0.00Cache hit', '$0.00074']);
  });
});
