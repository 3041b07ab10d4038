import { Button } from '@mantine/core';
import { browserLocation } from '../../../lib/browser-location';
import { useCreateCustomerPortalSession } from '../api/create-customer-portal-session';

/** Opens the payment provider's customer portal (spec §2 "Invoices") in this tab. */
export function InvoicesButton() {
  const portal = useCreateCustomerPortalSession();
  return (
    <Button
      variant="default"
      // Still loading once the URL is known: the browser is on its way to the portal.
      loading={portal.isPending || portal.isSuccess}
      onClick={() => portal.mutate(undefined, { onSuccess: ({ url }) => browserLocation.assign(url) })}
    >
      Invoices
    </Button>
  );
}
