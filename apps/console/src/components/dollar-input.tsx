import { NumberInput, type NumberInputProps } from '@mantine/core';

/** An amount of dollars and cents: "$" in front, two decimals. */
export function DollarInput(props: NumberInputProps) {
  return (
    <NumberInput
      prefix="$"
      decimalScale={2}
      // Mantine's dimmed grey misses WCAG AA contrast on white.
      descriptionProps={{ c: 'gray.7' }}
      {...props}
    />
  );
}
