import { NumberInput, type NumberInputProps } from '@mantine/core';

// Mantine's dimmed grey misses WCAG AA contrast on white.
export const descriptionProps = { c: 'gray.7' } as const;

/** The legend of a key form fieldset, at the size of the fields' labels. */
export const fieldsetStyles = { legend: { fontSize: 'var(--mantine-font-size-sm)', fontWeight: 500 } };

type CapInputProps = Omit<NumberInputProps, 'description'> & { label: string; unit: 'requests' | 'dollars'; period?: string };

/** One cap of a key's limits: a whole number of requests or an amount of dollars (per `period`); empty is no cap. */
export function CapInput({ unit, period, ...props }: CapInputProps) {
  const money = unit === 'dollars' ? ({ prefix: '$', decimalScale: 2 } as const) : ({ allowDecimal: false } as const);
  return (
    <NumberInput
      description={period ? `Dollars per ${period}. Empty: no cap` : 'Empty: no cap'}
      descriptionProps={descriptionProps}
      placeholder="No cap"
      allowNegative={false}
      {...money}
      {...props}
    />
  );
}
