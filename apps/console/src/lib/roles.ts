import { type Role, roles } from '@meterway/contracts';

/** How a role reads in the console (issue #21); the api's strings stay lower case. */
export const roleLabels: Readonly<Record<Role, string>> = { owner: 'Owner', admin: 'Admin', developer: 'Developer', billing: 'Billing' };

/** The roles as Select options, in the contract's order (most rights first). */
export const roleOptions = roles.map((value) => ({ value, label: roleLabels[value] }));
