import { generate } from 'otplib';

const stepMs = 30_000;

/**
 * An authenticator app for one secret, as a person uses it: identity accepts each 30-second step's
 * code once, so every code this gives is of a later step than the last. The server takes a code one
 * step ahead of its clock; a further step is waited for, as a person would wait for the next code.
 */
export function authenticatorApp(secret: string) {
  let lastStep = -1;
  return {
    async code(): Promise<string> {
      const step = Math.max(lastStep + 1, Math.floor(Date.now() / stepMs));
      const wait = (step - 1) * stepMs - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait + 1000));
      lastStep = step;
      return generate({ secret, epoch: (step * stepMs) / 1000 });
    },
  };
}
