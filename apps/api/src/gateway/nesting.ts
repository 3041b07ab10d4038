/** How deep a chat request may nest: far beyond any real one, well within what JSON.stringify can write back. */
export const maxNesting = 64;

/** True when `value` nests objects or arrays deeper than `max` levels; walked without recursion. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth >= max) return true;
    for (const inner of Object.values(item)) pending.push([inner, depth + 1]);
  }
  return false;
}
