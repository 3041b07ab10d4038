import { within } from '@testing-library/react';

/** The text of each cell of a table's body rows (the header row left out). */
export const bodyCellTexts = (table: HTMLElement) =>
  within(table)
    .getAllByRole('row')
    .slice(1)
    .map((row) =>
      within(row)
        .getAllByRole('cell')
        .map((cell) => cell.textContent),
    );
