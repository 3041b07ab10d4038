import { Badge, Text } from '@mantine/core';
import { canMakeAdminKey, type KeyMaker } from '@meterway/contracts';

type KeyMakerNoteProps = { madeBy: KeyMaker | null; name: string; adminScope?: boolean };

/**
 * Who holds the key's value (made or last rolled it): marked when they left the organisation, and
 * for an admin key, said to be stopped when they may no longer make one (the api refuses it then).
 */
export function KeyMakerNote({ madeBy, name, adminScope = false }: KeyMakerNoteProps) {
  if (!madeBy) return null;
  const left = madeBy.role === null;
  const stopped = adminScope && (madeBy.role === null || !canMakeAdminKey(madeBy.role));
  return (
    <div aria-label={`Maker of ${name}`}>
      {/* Mantine's dimmed grey misses WCAG AA contrast on white. */}
      <Text size="xs" c="gray.7" style={{ overflowWrap: 'anywhere' }}>
        {`Made by ${madeBy.email}`}
      </Text>
      {left && (
        <Badge size="xs" variant="outline" color="orange.9" tt="none">
          Maker left
        </Badge>
      )}
      {stopped && (
        <Text size="xs" c="red.9">
          {left ? 'Stopped: roll it to take it over.' : 'Stopped: its maker is no longer an owner or admin. Roll it to take it over.'}
        </Text>
      )}
    </div>
  );
}
