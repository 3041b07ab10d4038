import { Button, type ButtonProps } from '@mantine/core';
import { useNavigate } from 'react-router';
import { paths } from '../../../config/paths';
import { useCreatePaymentMethodSession } from '../api/create-payment-method-session';
import { setupSessionState } from '../setup-session-state';

type SaveCardButtonProps = ButtonProps & { replace?: boolean };

/**
 * Opens a setup-mode session and goes to the card form with it. The session rides in the
 * history entry's state, not the URL: its client secret stays out of links and logs, and a reload
 * keeps it.
 */
export function SaveCardButton({ replace = false, ...props }: SaveCardButtonProps) {
  const navigate = useNavigate();
  const create = useCreatePaymentMethodSession();
  return (
    <Button
      {...props}
      loading={create.isPending}
      onClick={() => create.mutate(undefined, { onSuccess: (session) => navigate(paths.autoTopUpCard.getHref(), { state: setupSessionState(session) }) })}
    >
      {replace ? 'Replace card' : 'Save a card'}
    </Button>
  );
}
