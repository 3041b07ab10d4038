import { type ComboboxData, Select } from '@mantine/core';
import type { UsageKeyFilter } from '../key-filter-params';

type KeyOption = { id: string; name: string };

const allKeys = 'all';

// One Select for both kinds of key: its values say which kind, so an id names its list parameter.
const publishableValue = (id: string) => `publishable:${id}`;
const secretValue = (id: string) => `secret:${id}`;

const filterOf = (value: string | null): UsageKeyFilter => {
  const [kind, id] = (value ?? '').split(/:(.*)/s);
  if (!id) return {};
  return kind === 'secret' ? { secretKeyId: id } : { publishableKeyId: id };
};

type KeyFilterProps = {
  /** Undefined while the keys load. */
  publishableKeys: readonly KeyOption[] | undefined;
  /** The secret keys (issue #23); undefined while they load. */
  secretKeys: readonly KeyOption[] | undefined;
  /** The chosen key; empty for every key. */
  value: UsageKeyFilter;
  onChange: (filter: UsageKeyFilter) => void;
};

/** Chooses whose usage the page shows: every key, or one publishable or secret key. */
export function KeyFilter({ publishableKeys, secretKeys, value, onChange }: KeyFilterProps) {
  const selected = value.publishableKeyId ? publishableValue(value.publishableKeyId) : value.secretKeyId ? secretValue(value.secretKeyId) : allKeys;
  const publishable = (publishableKeys ?? []).map((key) => ({ value: publishableValue(key.id), label: key.name }));
  // "(secret)" in the label too: a name may be the same in both lists.
  const secret = (secretKeys ?? []).map((key) => ({ value: secretValue(key.id), label: `${key.name} (secret)` }));
  // A key the URL names that the lists lack (a deleted key's history) stays chosen, and says so.
  const listed = selected === allKeys || !publishableKeys || !secretKeys || [...publishable, ...secret].some((option) => option.value === selected);
  const data: ComboboxData = [
    { value: allKeys, label: 'All keys' },
    ...(listed ? [] : [{ value: selected, label: 'Unlisted key' }]),
    // Grouped once there are secret keys; until then the list reads as it always did.
    ...(secret.length > 0
      ? [
          { group: 'Publishable keys', items: publishable },
          { group: 'Secret keys', items: secret },
        ]
      : publishable),
  ];
  return <Select label="Key" data={data} value={selected} onChange={(next) => onChange(filterOf(next))} allowDeselect={false} w={260} />;
}
