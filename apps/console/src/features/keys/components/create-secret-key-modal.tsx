import { Modal } from '@mantine/core';
import type { SecretKey, SecretKeyScope } from '@meterway/contracts';
import { useState } from 'react';
import { useCreateSecretKey } from '../api/create-secret-key';
import { newSecretKeyFormValues, secretKeyInputOf } from '../secret-key-form-schema';
import { CreatedKeyView } from './created-key-view';
import { KeyForm, useKeyForm } from './key-form';
import { SecretKeyScopeField } from './secret-key-scope-field';

type CreateSecretKeyModalProps = { opened: boolean; onClose: () => void };

/** New secret key (issue #23): the key form without domains, plus its scope; then its value, shown this once. */
export function CreateSecretKeyModal({ opened, onClose }: CreateSecretKeyModalProps) {
  const form = useKeyForm(newSecretKeyFormValues());
  const [scope, setScope] = useState<SecretKeyScope>('gateway');
  const createKey = useCreateSecretKey();
  const [created, setCreated] = useState<SecretKey>();

  const close = () => {
    onClose();
    // The next New secret key starts from the defaults again, and the value shown is gone for good.
    form.setValues(newSecretKeyFormValues());
    form.clearErrors();
    setScope('gateway');
    setCreated(undefined);
    createKey.reset();
  };

  return (
    <Modal opened={opened} onClose={close} title="New secret key" size="lg">
      {created ? (
        <CreatedKeyView shownKey={{ name: created.name, value: created.value ?? '' }} kind="secret" onDone={close} />
      ) : (
        <KeyForm
          form={form}
          kind="secret"
          afterName={<SecretKeyScopeField value={scope} onChange={setScope} />}
          submitLabel="Create key"
          submitting={createKey.isPending}
          onSubmit={(values) => createKey.mutate(secretKeyInputOf(values, scope), { onSuccess: (key) => setCreated(key) })}
        />
      )}
    </Modal>
  );
}
