import { type CSSVariablesResolver, createTheme } from '@mantine/core';

export const theme = createTheme({
  primaryColor: 'blue',
  // Shade 6 (Mantine's default) is 3.5:1 against white, below WCAG AA for text and for white
  // text on filled buttons; shade 8 is above 4.5:1.
  primaryShade: 8,
  defaultRadius: 'md',
});

/** Mantine's `dimmed` text is gray 6 (3.3:1 on white); gray 7 keeps it quiet and readable. */
export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: { '--mantine-color-dimmed': 'var(--mantine-color-gray-7)' },
  dark: {},
});
