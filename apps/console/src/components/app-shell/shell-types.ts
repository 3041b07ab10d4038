import type { Me } from '@meterway/contracts';

/** Who is signed in, and in which of their organisations (issue #21), as /bff/me says. */
export type ShellUser = Pick<Me, 'email' | 'organizationName' | 'systemAdmin' | 'organizationId' | 'role' | 'organizations'>;

/**
 * What the avatar menu asks of the screen that composes the shell: these actions live in features
 * (feedback, organisations), which the shell may not import.
 */
export type MenuActions = {
  sendFeedback: () => void;
  /** Makes another of the person's organisations the current one. */
  switchOrganization: (organizationId: string) => void;
  newOrganization: () => void;
  leaveOrganization: () => void;
};
