const units = [
  { seconds: 3600, one: 'hour', many: 'hours' },
  { seconds: 60, one: 'minute', many: 'minutes' },
  { seconds: 1, one: 'second', many: 'seconds' },
] as const;

/**
 * A wait a person reads: "15 minutes", "1 minute 30 seconds", "45 seconds", "1 hour 5 minutes".
 * The two largest units that are not zero; anything under a second reads as "1 second".
 */
export function waitText(totalSeconds: number): string {
  let left = Math.max(1, Math.ceil(totalSeconds));
  const parts: string[] = [];
  for (const unit of units) {
    const count = Math.floor(left / unit.seconds);
    left -= count * unit.seconds;
    if (count > 0) parts.push(`${count} ${count === 1 ? unit.one : unit.many}`);
  }
  return parts.slice(0, 2).join(' ');
}
