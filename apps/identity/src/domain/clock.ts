/** Time comes from here so tests can move it (flow and code expiry, privileged windows). */
export type Clock = { now: () => Date };

export const systemClock: Clock = { now: () => new Date() };

export const addMinutes = (date: Date, minutes: number) => new Date(date.getTime() + minutes * 60_000);
