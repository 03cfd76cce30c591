/** The text a wallet signs to join a team: its owner's word that the org may count its spend and read its stats. */
export function joinConsentText(orgId: string, teamId: string, wallet: string): string {
  return `gw-team-wallet-v1:${orgId}:${teamId}:${wallet}`;
}

/** The text a wallet signs to leave a team, with no key of the org needed. */
export function leaveConsentText(orgId: string, teamId: string, wallet: string): string {
  return `gw-team-wallet-leave-v1:${orgId}:${teamId}:${wallet}`;
}
