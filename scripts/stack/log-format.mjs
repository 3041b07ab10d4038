// Turns a pino JSON line into one short readable line; anything else passes through unchanged.
const levels = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
const omitted = new Set(['level', 'time', 'pid', 'hostname', 'msg']);

export function formatLogLine(line) {
  if (!line.startsWith('{')) return line;
  let entry;
  try {
    entry = JSON.parse(line);
  } catch {
    return line;
  }
  const time = new Date(entry.time ?? Date.now()).toISOString().slice(11, 19);
  const extra = Object.entries(entry)
    .filter(([key]) => !omitted.has(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
  return `${time} ${(levels[entry.level] ?? entry.level).padEnd(5)} ${entry.msg ?? ''}${extra ? ` ${extra}` : ''}`;
}
