/**
 * The two kinds of key (issue #23): a publishable key lives in a web page, limited by origins and
 * per-visitor caps; a secret key lives on a server, is shown once and never goes in a page. The
 * form pieces, the shown-once view and the roll modal serve both, worded by kind.
 */
export type KeyKind = 'publishable' | 'secret';

export const keyKindTexts = {
  publishable: {
    /** The value's field label and the noun in sentences. */
    label: 'Publishable key',
    noun: 'publishable key',
    /** How the per-address caps name the caller. */
    caller: 'visitor address',
    worstCase: 'Worst case if copied today',
    limitsLegend: 'Limits for a copied key',
    limitsHelp: 'A publishable key is in your page for anyone to copy; these bound what a copy can do.',
    tokenSender: 'Your page',
    rollKeeps: 'Its name, budget, allowed domains and spend stay as they are.',
  },
  secret: {
    label: 'Secret key',
    noun: 'secret key',
    caller: 'client address',
    worstCase: 'Worst case if leaked today',
    limitsLegend: 'Limits',
    limitsHelp: 'What calls with this key may do. A server calls from one address, so per-address caps are off unless you set them.',
    tokenSender: 'Your server',
    rollKeeps: 'Its name, scope, budget and spend stay as they are.',
  },
} as const satisfies Record<KeyKind, Record<string, string>>;
