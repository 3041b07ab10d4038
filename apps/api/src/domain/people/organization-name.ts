/** A readable default name from the e-mail's local part: "ada.lovelace@x.io" → "Ada Lovelace's organisation". */
export function defaultOrganizationName(email: string): string {
  const local = email.split('@')[0] ?? '';
  const words = local
    .split(/[._+-]+/)
    .filter((word) => /[a-z]/i.test(word))
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase());
  return words.length ? `${words.join(' ')}'s organisation` : 'My organisation';
}
