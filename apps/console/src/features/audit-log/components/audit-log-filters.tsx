import { Group, Select, TextInput } from '@mantine/core';
import { auditActions } from '@meterway/contracts';
import { useState } from 'react';
import type { AuditLogFilters as Filters } from '../api/get-audit-log';
import { actionLabel } from '../audit-format';

const everyAction = 'all';
const actionOptions = [{ value: everyAction, label: 'All actions' }, ...auditActions.map((action) => ({ value: action, label: actionLabel(action) }))];

type AuditLogFiltersProps = Filters & { onChange: (filters: Filters) => void };

/** Chooses whose entries, and which action, the audit log shows. The address applies on Enter or on leaving the field. */
export function AuditLogFilters({ actorEmail, action, onChange }: AuditLogFiltersProps) {
  const [typed, setTyped] = useState(actorEmail ?? '');
  const applyActor = () => {
    const next = typed.trim() || undefined;
    if (next !== actorEmail) onChange({ actorEmail: next, action });
  };

  return (
    <Group align="flex-end" gap="sm">
      <TextInput
        label="Actor e-mail"
        placeholder="name@example.com"
        value={typed}
        maxLength={100}
        onChange={(event) => setTyped(event.currentTarget.value)}
        onBlur={applyActor}
        onKeyDown={(event) => {
          if (event.key === 'Enter') applyActor();
        }}
        w={240}
      />
      <Select
        label="Action"
        data={actionOptions}
        value={action ?? everyAction}
        onChange={(value) => onChange({ actorEmail, action: auditActions.find((known) => known === value) })}
        allowDeselect={false}
        w={220}
      />
    </Group>
  );
}
