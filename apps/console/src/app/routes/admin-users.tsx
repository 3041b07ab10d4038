// Placeholder until its owner lands the screen.
export function Component() {
  return <h1>admin-users</h1>;
}
