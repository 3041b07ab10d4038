import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';

/**
 * Violations axe rates serious or critical on the page as it is now, within `include` and outside
 * `exclude` when given: one line each, with the failing elements and what fails, for the test's diff.
 */
export async function seriousViolations(page: Page, { include, exclude }: { include?: string; exclude?: string } = {}): Promise<string[]> {
  // A modal still fading in blends its colours with the page: axe would measure contrast mid-way.
  await page.evaluate('Promise.all(document.getAnimations().map((animation) => animation.finished.catch(() => undefined)))');
  let builder = new AxeBuilder({ page });
  if (include) builder = builder.include(include);
  if (exclude) builder = builder.exclude(exclude);
  const { violations } = await builder.analyze();
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(({ id, help, nodes }) => `${id} (${help}): ${nodes.map((node) => `${node.target.join(' ')} (${node.failureSummary ?? node.html})`).join(', ')}`);
}
