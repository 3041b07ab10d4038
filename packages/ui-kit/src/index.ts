// The look the console and identity's hosted pages share: one Mantine theme, the logo, the sign-in card.
export { AuthCard } from './auth-card';
export { Logo } from './logo';
export { cssVariablesResolver, theme } from './theme';
