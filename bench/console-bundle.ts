import { gzipSync } from 'node:zlib';

/** Gzipped bytes of the JavaScript the browser loads for /login (the entry and its preloads). */
export async function measureBundle(consoleUrl: string): Promise<void> {
  const html = await (await fetch(`${consoleUrl}/login`)).text();
  const scripts = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((match) => match[1]);
  let total = 0;
  for (const path of new Set(scripts)) {
    const body = Buffer.from(await (await fetch(`${consoleUrl}${path}`)).arrayBuffer());
    total += gzipSync(body).length;
  }
  console.log(`console /login JS     ${scripts.length} files, ${(total / 1024).toFixed(1)} kB gzipped (entry and modulepreloads; lazy route chunks not counted)`);
}
