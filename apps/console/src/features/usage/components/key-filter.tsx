import { Select } from '@mantine/core';

type KeyOption = { id: string; name: string };

const allKeys = 'all';

type KeyFilterProps = {
  /** Undefined while the keys load. */
  keys: readonly KeyOption[] | undefined;
  /** The chosen key's id; undefined for every key. */
  value: string | undefined;
  onChange: (keyId: string | undefined) => void;
};

/** Chooses whose usage the page shows: every key, or one. */
export function KeyFilter({ keys, value, onChange }: KeyFilterProps) {
  // A key the URL names that the list lacks (a deleted key's history) stays chosen, and says so.
  const listed = !value || !keys || keys.some((key) => key.id === value);
  const data = [
    { value: allKeys, label: 'All keys' },
    ...(keys ?? []).map((key) => ({ value: key.id, label: key.name })),
    ...(listed ? [] : [{ value: value, label: 'Unlisted key' }]),
  ];
  return (
    <Select
      label="Publishable key"
      data={data}
      value={value ?? allKeys}
      onChange={(next) => onChange(next && next !== allKeys ? next : undefined)}
      allowDeselect={false}
      w={240}
    />
  );
}
