export { stubBrowserForMantine } from './browser-stubs';
export { failOnConsoleError } from './console-errors';
