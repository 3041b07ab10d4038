/** One sample of a Prometheus text exposition: its name, labels and value. */
export type Sample = { name: string; labels: Record<string, string>; value: number };

const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const labelPair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/g;

/**
 * Reads Prometheus' text format (0.0.4) strictly, for tests: every sample belongs to a family
 * declared by `# TYPE` before it, and every line is a comment or a well-formed sample.
 */
export function readMetrics(text: string): { samples: Sample[]; types: Map<string, string> } {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ')) continue;
    const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      types.set(type[1] ?? '', type[2] ?? '');
      continue;
    }
    const match = sampleLine.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
    const [, name = '', labelText = '', valueText = ''] = match;
    const family = [...types.keys()].find((declared) => name === declared || ['_bucket', '_sum', '_count'].some((suffix) => name === declared + suffix));
    if (!family) throw new Error(`sample before its # TYPE: ${line}`);
    const labels = Object.fromEntries([...labelText.matchAll(labelPair)].map(([, key = '', value = '']) => [key, value]));
    // Prometheus reads values as Go floats: NaN and ±Inf in any case (prom-client writes an empty mean as Nan).
    const special = /^([+-]?)(inf|nan)$/i.exec(valueText);
    const value = special ? (special[2]?.toLowerCase() === 'nan' ? NaN : special[1] === '-' ? -Infinity : Infinity) : Number(valueText);
    if (!special && (valueText === '' || Number.isNaN(value))) throw new Error(`not a number: ${line}`);
    samples.push({ name, labels, value });
  }
  return { samples, types };
}

/** The value of the one sample with this name and (at least) these labels; 0 when there is none yet. */
export function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number {
  const found = readMetrics(text).samples.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value ?? 0;
}
