/** The part of an identity (a session's `identity`, whoami's body) the verified rule reads. */
export type IdentityWithAddresses = {
  traits?: unknown;
  verifiable_addresses?: readonly { value?: string; verified?: boolean }[] | undefined;
};

/**
 * Spec §4: a person counts as verified when the verifiable address equal to their e-mail trait is
 * verified. Compared without case, as identity stores addresses lower-cased.
 */
export function isEmailVerified(identity: IdentityWithAddresses): boolean {
  const traits = identity.traits as { email?: unknown } | undefined;
  if (typeof traits?.email !== 'string') return false;
  const email = traits.email.toLowerCase();
  return (identity.verifiable_addresses ?? []).some((address) => address.value?.toLowerCase() === email && address.verified === true);
}
