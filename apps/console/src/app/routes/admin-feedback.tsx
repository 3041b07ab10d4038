import { AdminListPage } from '../../features/admin/components/admin-list-page';
import { FeedbackTable } from '../../features/admin/components/feedback-table';

export function Component() {
  return (
    <AdminListPage title="Feedback">
      <FeedbackTable />
    </AdminListPage>
  );
}
