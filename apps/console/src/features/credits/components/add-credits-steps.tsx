import { Stepper } from '@mantine/core';
import { useState } from 'react';
import type { CheckoutSessionStarted } from '../api/create-checkout-session';
import { AmountStep } from './amount-step';
import { CheckoutStep } from './checkout-step';
import { PaymentStatus } from './payment-status';

type AddCreditsStepsProps = {
  /** From the URL: the provider returned here after the payment, so the flow is at its status. */
  checkoutSessionId?: string;
};

/** Spec §2 and §4: amount, then checkout, then status. */
export function AddCreditsSteps({ checkoutSessionId }: AddCreditsStepsProps) {
  const [session, setSession] = useState<CheckoutSessionStarted>();
  const active = checkoutSessionId ? 2 : session ? 1 : 0;
  const current = (step: number) => (step === active ? ('step' as const) : undefined);

  return (
    <Stepper
      active={active}
      // Only the amount can be revisited, and only from the checkout: a status is final.
      onStepClick={(step) => {
        if (step === 0 && active === 1) setSession(undefined);
      }}
    >
      <Stepper.Step label="Amount" aria-current={current(0)} allowStepSelect={active === 1}>
        <AmountStep onStarted={setSession} />
      </Stepper.Step>
      <Stepper.Step label="Checkout" aria-current={current(1)} allowStepSelect={false}>
        {session && <CheckoutStep session={session} onBack={() => setSession(undefined)} />}
      </Stepper.Step>
      <Stepper.Step label="Status" aria-current={current(2)} allowStepSelect={false}>
        {checkoutSessionId && <PaymentStatus checkoutSessionId={checkoutSessionId} />}
      </Stepper.Step>
    </Stepper>
  );
}
