// Placeholder until its owner lands the screen.
export function Component() {
  return <h1>recover-password</h1>;
}
