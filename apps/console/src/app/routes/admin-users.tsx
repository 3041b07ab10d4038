import { AdminListPage } from '../../features/admin/components/admin-list-page';
import { PersonsTable } from '../../features/admin/components/persons-table';

export function Component() {
  return (
    <AdminListPage title="Users">
      <PersonsTable />
    </AdminListPage>
  );
}
