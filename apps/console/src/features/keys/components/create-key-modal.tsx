import { Modal } from '@mantine/core';
import type { PublishableKey } from '@meterway/contracts';
import { useState } from 'react';
import { useCreatePublishableKey } from '../api/create-publishable-key';
import { keyInputOf, newKeyFormValues } from '../key-form-schema';
import { CreatedKeyView } from './created-key-view';
import { KeyForm, useKeyForm } from './key-form';

type CreateKeyModalProps = { opened: boolean; onClose: () => void };

export function CreateKeyModal({ opened, onClose }: CreateKeyModalProps) {
  const form = useKeyForm(newKeyFormValues());
  const createKey = useCreatePublishableKey();
  const [created, setCreated] = useState<PublishableKey>();

  const close = () => {
    onClose();
    // The next New publishable key starts from the defaults again.
    form.setValues(newKeyFormValues());
    form.clearErrors();
    setCreated(undefined);
    createKey.reset();
  };

  return (
    <Modal opened={opened} onClose={close} title="New publishable key" size="lg">
      {created ? (
        <CreatedKeyView shownKey={created} onDone={close} />
      ) : (
        <KeyForm
          form={form}
          submitLabel="Create key"
          submitting={createKey.isPending}
          onSubmit={(values) => createKey.mutate(keyInputOf(values), { onSuccess: (key) => setCreated(key) })}
        />
      )}
    </Modal>
  );
}
