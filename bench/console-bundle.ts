import { gzipSync } from 'node:zlib';
import { launchBrowser } from '../e2e/support/browser.js';

type FileFigure = { url: string; gzipBytes: number };
export type BundleFigure = { files: FileFigure[]; totalGzipBytes: number; styles: FileFigure[] };

/**
 * Gzipped bytes of every script Chromium loads to show /login, lazy route chunks included: the
 * page's own requests are followed, so a chunk counts only when the screen really needs it.
 * Level 9, as the .gz files the console's server sends. The stylesheets are listed apart: they
 * block the first paint but are not part of the JavaScript target.
 */
export async function measureBundle(consoleUrl: string): Promise<BundleFigure> {
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    const pending: Promise<void>[] = [];
    const files: FileFigure[] = [];
    const styles: FileFigure[] = [];
    page.on('response', (response) => {
      const type = response.request().resourceType();
      if (type !== 'script' && type !== 'stylesheet') return;
      pending.push(
        response.body().then((body) => {
          (type === 'script' ? files : styles).push({ url: response.url(), gzipBytes: gzipSync(body, { level: 9 }).length });
        }),
      );
    });
    await page.goto(`${consoleUrl}/login`, { waitUntil: 'networkidle' });
    await page.getByRole('button', { name: 'Login' }).waitFor();
    await Promise.all(pending);
    const totalGzipBytes = files.reduce((sum, file) => sum + file.gzipBytes, 0);
    const stylesGzipBytes = styles.reduce((sum, file) => sum + file.gzipBytes, 0);
    console.log(`console /login JS     ${files.length} files, ${kB(totalGzipBytes)} gzipped (everything loaded to show the form)`);
    console.log(`console /login CSS    ${styles.length} files, ${kB(stylesGzipBytes)} gzipped`);
    return { files, totalGzipBytes, styles };
  } finally {
    await browser.close();
  }
}

export const kB = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;
