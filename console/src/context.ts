import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Api } from './api';
import type { Powers } from './powers';
import type { Who } from './wire';

/** The signed-in session as every view sees it: the API with its credential, who that is, and the org in view. */
export interface Session {
  api: Api;
  who: Who;
  powers: Powers;
  /** The key's org; for the admin token the org opened from the orgs view, if any. */
  orgId: string | null;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('no session');
  return session;
}
