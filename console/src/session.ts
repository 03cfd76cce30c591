/**
 * The credential lives in this tab's sessionStorage only (docs/decisions.md, "Console"): never in a
 * URL, a cookie or localStorage, and gone when the tab closes.
 */
const KEY = 'gw-console-credential';

export const storedCredential = (): string | null => sessionStorage.getItem(KEY);
export const storeCredential = (credential: string): void => sessionStorage.setItem(KEY, credential);
export const forgetCredential = (): void => sessionStorage.removeItem(KEY);
