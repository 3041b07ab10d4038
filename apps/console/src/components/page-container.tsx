import { Container, type ContainerProps } from '@mantine/core';

/** The page widths of spec §2, in px. */
export const pageWidths = { sm: 1000, md: 1200, lg: 1400 } as const;

export type PageSize = keyof typeof pageWidths;

type PageContainerProps = Omit<ContainerProps, 'size'> & { size?: PageSize };

/**
 * A signed-in screen's content column: centred, at most the width of its size. Full width below
 * that: the shell's main area is a flex column, where auto margins would shrink it to its content.
 */
export function PageContainer({ size = 'md', ...props }: PageContainerProps) {
  return <Container size={pageWidths[size]} w="100%" py="lg" {...props} />;
}
