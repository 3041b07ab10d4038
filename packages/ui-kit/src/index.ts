// The look the console and identity's hosted pages share: one Mantine theme and the logo.
export { Logo } from './logo';
export { theme } from './theme';
