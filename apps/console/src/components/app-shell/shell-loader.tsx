import { Center, Loader } from '@mantine/core';
import classes from './shell-loader.module.css';

/** What a signed-in screen shows while the current user loads: a centred loader that fades in late. */
export function ShellLoader() {
  return (
    <Center h="100dvh" role="status" aria-label="Loading">
      <Loader type="dots" className={classes.loader} />
    </Center>
  );
}
