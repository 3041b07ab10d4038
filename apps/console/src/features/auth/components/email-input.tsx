import { TextInput, type TextInputProps } from '@mantine/core';

/** The e-mail field of the login, sign-up and recovery forms; each form picks its autoComplete. */
export function EmailInput(props: TextInputProps) {
  return <TextInput label="Email" type="email" placeholder="you@company.com" {...props} />;
}
