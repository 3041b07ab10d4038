// Placeholder until its owner lands the screen.
export function Component() {
  return <h1>chat-completions</h1>;
}
