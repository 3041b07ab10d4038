/** The page's sections, in order (the table of contents), and its headings with their anchors. */
export const sections = [
  ['overview', 'Overview'],
  ['authentication', 'Authentication'],
  ['quickstart-fetch', 'Quickstart: fetch'],
  ['quickstart-sdk', 'Quickstart: openai SDK'],
  ['end-user-tokens', 'End-user tokens'],
  ['secret-keys', 'Secret keys (servers)'],
  ['developer-api', 'Developer API'],
  ['webhooks', 'Webhooks'],
  ['metering', 'Metering and billing'],
  ['errors', 'Errors'],
  ['limits', 'Limits'],
  ['models', 'Models and pricing'],
  ['reference', 'API reference'],
] as const;
export type SectionId = (typeof sections)[number][0];

export const h2 = (id: SectionId) => {
  const title = sections.find(([sectionId]) => sectionId === id)?.[1] ?? id;
  return `<h2 id="${id}">${title}<a class="anchor" href="#${id}" aria-label="Link to ${title}">#</a></h2>`;
};
export const h3 = (id: string, title: string) => `<h3 id="${id}">${title}<a class="anchor" href="#${id}" aria-label="Link to ${title}">#</a></h3>`;

/** The offline demo model every example calls. */
export const demoModelId = 'meterway-demo';
