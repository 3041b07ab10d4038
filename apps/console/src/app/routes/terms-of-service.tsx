// Placeholder until its owner lands the screen.
export function Component() {
  return <h1>terms-of-service</h1>;
}
