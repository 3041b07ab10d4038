import { type CSSVariablesResolver, createTheme } from '@mantine/core';

export const theme = createTheme({
  primaryColor: 'blue',
  // Shade 6 (Mantine's default) is 3.5:1 against white, below WCAG AA for text and for white
  // text on filled buttons; shade 8 is above 4.5:1.
  primaryShade: 8,
  defaultRadius: 'md',
  // Visitors who asked their system for less motion get no transitions.
  respectReducedMotion: true,
  components: {
    // Mantine's close buttons carry an icon and no name; screen readers need one. Plain objects,
    // not Modal.extend(): importing the components here would put them in every page's first load.
    Modal: { defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } },
    Notification: {
      defaultProps: { closeButtonProps: { 'aria-label': 'Close notification' } },
      // A titled toast's message is gray 6 (3.3:1 on white).
      styles: { description: { color: 'var(--mantine-color-gray-7)' } },
    },
  },
});

/** Mantine's `dimmed` text (gray 6) and error text (red 6) are 3.3:1 on white; gray 7 and red 9 read at AA. */
export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: { '--mantine-color-dimmed': 'var(--mantine-color-gray-7)', '--mantine-color-error': 'var(--mantine-color-red-9)' },
  dark: {},
});
