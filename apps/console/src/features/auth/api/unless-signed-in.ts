import { isSessionAlreadyAvailable } from '../../../lib/identity-client';

/** Identity would not start the flow: this browser has a session already (spec §2: the visitor goes on with it). */
export type SessionAlreadyAvailable = { type: 'SessionAlreadyAvailable' };

/** `outcome`, or SessionAlreadyAvailable where it failed only because the browser is signed in. */
export async function unlessSignedIn<T>(outcome: Promise<T>): Promise<T | SessionAlreadyAvailable> {
  try {
    return await outcome;
  } catch (error) {
    if (await isSessionAlreadyAvailable(error)) return { type: 'SessionAlreadyAvailable' };
    throw error;
  }
}
