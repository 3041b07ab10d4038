import { Button, CloseButton, Code, Fieldset, Group, Input, Stack, Text, TextInput } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import { allowedDomain, defaultAllowedOrigin, isAcceptedDomain, type KeyFormValues } from '../key-form-schema';

type AllowedDomainsFieldProps = { form: UseFormReturnType<KeyFormValues> };

/** The key form's list of allowed domains, with the suggestions of spec §5. */
export function AllowedDomainsField({ form }: AllowedDomainsFieldProps) {
  const domains = form.getValues().allowedDomains;
  const error = form.errors.allowedDomains;
  const suggestions = [...new Set([defaultAllowedOrigin, window.location.origin])];
  const isPresent = (suggestion: string) => domains.some((domain) => domain.value.trim() === suggestion);

  const add = (value = '') => {
    // A suggestion fills the first empty row rather than leaving it blank above the new one.
    const blank = value ? domains.findIndex((domain) => domain.value.trim() === '') : -1;
    if (blank >= 0) form.setFieldValue(`allowedDomains.${blank}.value`, value);
    else form.insertListItem('allowedDomains', allowedDomain(value));
    form.clearFieldError('allowedDomains');
  };

  return (
    // The legend reads like the form's other labels.
    <Fieldset
      legend="Allowed domains"
      variant="unstyled"
      styles={{ root: { padding: 0 }, legend: { fontSize: 'var(--mantine-font-size-sm)', fontWeight: 500, padding: 0 } }}
    >
      <Stack gap="xs">
        <Text size="xs" c="gray.7">
          Websites allowed to use this key, e.g. https://app.example.com. Blank rows are ignored.
        </Text>
        {domains.map((domain, index) => (
          <Group key={domain.key} gap="xs" wrap="nowrap">
            <TextInput
              flex={1}
              aria-label={`Allowed domain ${index + 1}`}
              placeholder="https://app.example.com"
              {...form.getInputProps(`allowedDomains.${index}.value`)}
              error={Boolean(error) && !isAcceptedDomain(domain.value)}
            />
            <CloseButton aria-label={`Remove allowed domain ${index + 1}`} onClick={() => form.removeListItem('allowedDomains', index)} />
          </Group>
        ))}
        {/* One message for the whole list, announced when it appears; the rows at fault are marked invalid. */}
        {error && <Input.Error role="alert">{error}</Input.Error>}
        <Group justify="space-between" align="flex-start">
          <Button variant="default" size="xs" onClick={() => add()}>
            Add domain
          </Button>
          <Stack gap={4} align="flex-end">
            <Text size="xs" c="gray.7">
              Suggestions
            </Text>
            {suggestions.map((suggestion) => (
              <Group key={suggestion} gap="xs" wrap="nowrap">
                <Code>{suggestion}</Code>
                <Button variant="default" size="compact-xs" aria-label={`Add ${suggestion}`} disabled={isPresent(suggestion)} onClick={() => add(suggestion)}>
                  Add
                </Button>
              </Group>
            ))}
          </Stack>
        </Group>
      </Stack>
    </Fieldset>
  );
}
