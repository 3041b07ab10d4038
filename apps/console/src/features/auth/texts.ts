/** Texts of spec §2 and §8 the auth screens show, word for word. */
export const recoveryTexts = {
  linkSent: "We've sent you an email containing the link to recover your account.",
  failure: 'Something went wrong',
} as const;

export const verificationTexts = {
  verified: 'Email verified!',
} as const;
