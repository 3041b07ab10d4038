import { Text } from '@mantine/core';
import type { Feedback } from '@meterway/contracts';
import { PagedTable, type PagedTableColumn } from '../../../components/paged-table';
import { idColumn } from '../../../components/id-column';
import { useTokenPaging } from '../../../components/pager';
import { feedbackTypeLabels } from '../../../lib/feedback-types';
import { useFeedback } from '../api/get-feedback';
import { noAdminAccessFor } from './no-admin-access';

const columns: readonly PagedTableColumn<Feedback>[] = [
  idColumn(),
  { header: 'From Email', cell: (row) => row.fromEmail },
  { header: 'Type', cell: (row) => feedbackTypeLabels[row.type] },
  // Descriptions are free text up to 5000 characters; keep the author's line breaks.
  {
    header: 'Description',
    cell: (row) => (
      <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
        {row.description}
      </Text>
    ),
  },
];

// Wired like PersonsTable on purpose: PagedTable is the shared part; the hook, columns and texts are each list's own.
/** All submitted feedback, newest first (system admins only). */
export function FeedbackTable() {
  const paging = useTokenPaging();
  const query = useFeedback(paging.request);
  return (
    <PagedTable
      label="Feedback"
      query={query}
      paging={paging}
      columns={columns}
      rowKey={(row) => row.id}
      emptyText="No feedback found"
      renderError={noAdminAccessFor}
    />
  );
}
