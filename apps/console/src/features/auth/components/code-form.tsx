import { Button, Stack, TextInput } from '@mantine/core';
import { schemaResolver, useForm } from '@mantine/form';
import type { ReactNode } from 'react';
import { type CodeValues, codeSchema } from '../schemas';

type CodeFormProps = {
  /** The field's label, e.g. 'Verification code'. */
  label: string;
  submitLabel: string;
  /** Called with a valid code only. */
  onSubmit: (values: CodeValues) => void;
  loading?: boolean;
  /** Shown above the field: the outcome of the last attempt. */
  alert?: ReactNode;
};

/** The e-mailed 6-character code (spec §5), for verification and recovery alike. */
export function CodeForm({ label, submitLabel, onSubmit, loading = false, alert }: CodeFormProps) {
  const form = useForm<CodeValues>({
    mode: 'uncontrolled',
    initialValues: { code: '' },
    validate: schemaResolver(codeSchema, { sync: true }),
  });

  return (
    <form noValidate onSubmit={form.onSubmit((values) => onSubmit({ code: values.code.trim() }))}>
      <Stack gap="md">
        {alert}
        <TextInput
          label={label}
          autoComplete="one-time-code"
          placeholder="123456"
          styles={{ input: { letterSpacing: 4, fontFamily: 'var(--mantine-font-family-monospace)' } }}
          key={form.key('code')}
          {...form.getInputProps('code')}
        />
        <Button type="submit" fullWidth loading={loading}>
          {submitLabel}
        </Button>
      </Stack>
    </form>
  );
}
