import { Modal } from '@mantine/core';
import type { SecretKey } from '@meterway/contracts';
import { notifySuccess } from '../../../lib/notify';
import { useUpdateSecretKey } from '../api/update-secret-key';
import { keyFormValuesOf } from '../key-form-schema';
import { secretKeyUpdateOf } from '../secret-key-form-schema';
import { KeyForm, useKeyForm } from './key-form';
import { SecretKeyScopeText } from './secret-key-scope-field';

type EditSecretKeyModalProps = { secretKey: SecretKey; onClose: () => void };

/** Edits a secret key's name, budget and limits (issue #23); its scope is shown, never changed. */
export function EditSecretKeyModal({ secretKey: key, onClose }: EditSecretKeyModalProps) {
  const form = useKeyForm(keyFormValuesOf(key));
  const updateKey = useUpdateSecretKey();

  return (
    <Modal opened onClose={onClose} title="Edit secret key" size="lg">
      <KeyForm
        form={form}
        kind="secret"
        afterName={<SecretKeyScopeText scope={key.scope} />}
        submitLabel="Save"
        submitting={updateKey.isPending}
        worstCaseDailySpend={key.worstCaseDailySpend}
        onSubmit={(values) =>
          updateKey.mutate(
            { id: key.id, input: secretKeyUpdateOf(values) },
            {
              onSuccess: () => {
                notifySuccess('Secret key updated');
                onClose();
              },
            },
          )
        }
      />
    </Modal>
  );
}
