import { Outlet } from 'react-router';

// Placeholder until its owner lands the guard.
export function Component() {
  return <Outlet />;
}
