import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { renderComponent } from '../../../testing/render';
import { SendFeedbackModal } from './send-feedback-modal';

// Posting and its toasts are covered where the modal is opened, in app-layout.test.tsx.

function renderModal() {
  const onClose = vi.fn();
  const view = renderComponent(<SendFeedbackModal opened onClose={onClose} />);
  return { ...view, onClose, dialog: screen.getByRole('dialog', { name: 'Send feedback' }) };
}

describe('SendFeedbackModal', () => {
  it('offers every feedback type by a readable name', async () => {
    const { user, dialog } = renderModal();

    await user.click(within(dialog).getByRole('combobox', { name: 'Type' }));

    expect(screen.getAllByRole('option').map((option) => option.textContent)).toEqual(['Bug report', 'Feature request', 'Question', 'Key deletion', 'Other']);
  });

  it("says what is missing with the contracts' messages, sending nothing", async () => {
    const { user, dialog } = renderModal();

    await user.type(within(dialog).getByRole('textbox', { name: 'Description' }), '   ');
    await user.click(within(dialog).getByRole('button', { name: 'Send feedback' }));

    expect(within(dialog).getByRole('combobox', { name: 'Type' })).toHaveAccessibleDescription(
      'type must be one of bug, feature_request, question, key_deletion, other',
    );
    expect(within(dialog).getByRole('textbox', { name: 'Description' })).toHaveAccessibleDescription('This field is required');
  });

  it('refuses a description longer than 5000 characters', async () => {
    const { user, dialog } = renderModal();

    await user.click(within(dialog).getByRole('textbox', { name: 'Description' }));
    await user.paste('x'.repeat(5001));
    await user.click(within(dialog).getByRole('button', { name: 'Send feedback' }));

    expect(within(dialog).getByRole('textbox', { name: 'Description' })).toHaveAccessibleDescription('Maximum length is 5000');
  });

  it('Cancel closes without sending', async () => {
    const { user, dialog, onClose } = renderModal();

    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));

    expect(onClose).toHaveBeenCalledOnce();
  });
});
