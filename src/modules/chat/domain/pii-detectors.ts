import pii from './guard-data/pii.json';

/**
 * High-risk identifiers and secrets that must not be forwarded to a third-party model: payment
 * card numbers, US Social Security numbers, IBANs and private keys. Each candidate is checked the
 * way the issuer checks it (Luhn, SSA ranges, ISO 13616 mod-97, PEM armour with a body), so long
 * numbers in ordinary prompts (order ids, timestamps, 2^64) do not trip it. Emails, phone numbers
 * and names are deliberately not detected (see docs, "Prompt guard").
 *
 * Input is the guard's `exact` view: NFKC (fullwidth digits are ASCII), invisible characters removed.
 */

export type PiiRule = 'pii.payment-card' | 'pii.us-ssn' | 'pii.iban' | 'pii.private-key';

/** Published test or example values (guard-data/pii.json): they identify nobody. */
const PUBLISHED_CARDS = new Set(pii.publishedCards.numbers);
const PUBLISHED_SSNS = new Set(pii.publishedSsns.numbers);
const PUBLISHED_IBANS = new Set(pii.publishedIbans.numbers);

export function findPii(text: string): PiiRule | undefined {
  if (containsCardNumber(text)) return 'pii.payment-card';
  if (containsSsn(text)) return 'pii.us-ssn';
  if (containsIban(text)) return 'pii.iban';
  if (containsPrivateKey(text)) return 'pii.private-key';
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Payment cards

// A run of digit groups joined by single spaces or dashes, not part of a word (hex hashes), a
// decimal or a longer number. Bounded (docs/decisions.md, "Bounded runs in text scans"): a longer
// run is no card. A run the bound cut is skipped to its end, so its tail is not read as a card;
// a match may still start after a digit and a space ("exp 09/27 4635 ..."), where no run was taken.
const DIGIT_RUN = /(?<![\p{L}\p{N}_/-])(?<!\d[.,])\d{1,24}(?:[ -]\d{1,24}){0,12}(?![\p{L}\p{N}_]|[.,]\d)/gu;
const MAX_DIGIT_GROUPS = 13;

// How cards are written: contiguous, in fours (the last group may be short), or 4-6-5 / 4-6-4.
const CARD_GROUPING = /^(?:\d{13,19}|\d{4}(?:[ -]\d{4}){2,3}(?:[ -]\d{1,4})?|\d{4}[ -]\d{6}[ -]\d{4,5})$/;

/** Issuer prefixes and the lengths each network issues (guard-data/pii.json). */
const CARD_NETWORKS: ReadonlyArray<{ readonly prefix: RegExp; readonly lengths: readonly number[] }> = pii.cardNetworks.networks.map(({ prefix, lengths }) => ({
  prefix: new RegExp(prefix),
  lengths,
}));

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = digits.length - 1, double = false; i >= 0; i--, double = !double) {
    let digit = digits.charCodeAt(i) - 48;
    if (double) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

export function isCardNumber(digits: string): boolean {
  return CARD_NETWORKS.some(({ prefix, lengths }) => prefix.test(digits) && lengths.includes(digits.length)) && luhnValid(digits) && !PUBLISHED_CARDS.has(digits);
}

function containsCardNumber(text: string): boolean {
  for (const match of matchesOf(DIGIT_RUN, text)) {
    const [run] = match;
    // Checked before stripping separators so a 30-digit run is never scanned for a card inside it.
    if (run.length <= 23 && CARD_GROUPING.test(run) && isCardNumber(run.replace(/[ -]/g, ''))) return true;
    if (groupCount(run) === MAX_DIGIT_GROUPS) DIGIT_RUN.lastIndex = digitRunEnd(text, match.index + run.length);
  }
  return false;
}

function groupCount(run: string): number {
  let groups = 1;
  for (let i = 0; i < run.length; i++) if (run.charCodeAt(i) === 0x20 || run.charCodeAt(i) === 0x2d) groups++;
  return groups;
}

/** Where the run of digit groups going on at `from` ends: past every digit and every single space or dash before one. */
function digitRunEnd(text: string, from: number): number {
  let end = from;
  while (end < text.length && (isDigit(text, end) || ((text[end] === ' ' || text[end] === '-') && isDigit(text, end + 1)))) end++;
  return end;
}

function isDigit(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  return code >= 0x30 && code <= 0x39;
}

// ---------------------------------------------------------------------------------------------
// US Social Security numbers

// AAA-GG-SSSS anywhere; with spaces, dots or no separator only right after an SSN keyword.
const SSN_DASHED = /(?<![\w-])(\d{3})-(\d{2})-(\d{4})(?![\w-])/g;
const SSN_AFTER_KEYWORD = /(?:\bssn|social security (?:number|no\.?|#))[^\d\n]{0,12}(?<!\d)(\d{3})[ .]?(\d{2})[ .]?(\d{4})(?!\d)/gi;

/** SSA rules: area 001-899 except 666, group 01-99, serial 0001-9999. */
export function isSsn(area: string, group: string, serial: string): boolean {
  const areaNumber = Number(area);
  return areaNumber > 0 && areaNumber < 900 && areaNumber !== 666 && group !== '00' && serial !== '0000' && !PUBLISHED_SSNS.has(`${area}-${group}-${serial}`);
}

function containsSsn(text: string): boolean {
  for (const pattern of [SSN_DASHED, SSN_AFTER_KEYWORD]) {
    for (const [, area, group, serial] of matchesOf(pattern, text)) {
      if (isSsn(area!, group!, serial!)) return true;
    }
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// IBANs

// Country code, check digits, then the BBAN contiguous or in groups of four (as printed).
const IBAN_CANDIDATE = /(?<![\p{L}\p{N}])[a-z]{2}\d{2}(?:[a-z0-9]{11,30}|(?: [a-z0-9]{4}){2,8}(?: [a-z0-9]{1,4})?)(?![\p{L}\p{N}])/giu;

/** IBAN length per country (guard-data/pii.json); a country code not listed is not an IBAN. */
const IBAN_LENGTHS: Readonly<Record<string, number>> = pii.ibanLengths.countries;

/** ISO 13616: move the first four characters to the end, letters to 10..35, remainder mod 97 is 1. */
export function ibanChecksumValid(iban: string): boolean {
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const character of rearranged) {
    const value = Number.parseInt(character, 36);
    remainder = (value > 9 ? remainder * 100 + value : remainder * 10 + value) % 97;
  }
  return remainder === 1;
}

export function isIban(compact: string): boolean {
  const iban = compact.toUpperCase();
  return IBAN_LENGTHS[iban.slice(0, 2)] === iban.length && ibanChecksumValid(iban) && !PUBLISHED_IBANS.has(iban);
}

function containsIban(text: string): boolean {
  for (const [candidate] of matchesOf(IBAN_CANDIDATE, text)) {
    const compact = candidate.replace(/ /g, '').toUpperCase();
    // A grouped IBAN may have swallowed a following short word ("... 3610 and"): cut to the country's length.
    const length = IBAN_LENGTHS[compact.slice(0, 2)];
    if (length !== undefined && isIban(compact.slice(0, length))) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Private keys

// PEM (PKCS#1/#8, SEC1, OpenSSH, PGP armour). Only with a key body after it: a prompt that names
// the header ("find files containing BEGIN RSA PRIVATE KEY") leaks nothing. The words before
// PRIVATE KEY (RSA, EC, OPENSSH, ENCRYPTED, PGP) are short: bounded, so that a header opening
// followed by MiBs of capitals cannot overflow the backtracking stack (docs/decisions.md,
// "Bounded runs in text scans").
const PRIVATE_KEY_HEADER = /-----BEGIN (?:[A-Z0-9]{1,32} ){0,3}PRIVATE KEY(?: BLOCK)?-----/g;
const KEY_BODY = /[A-Za-z0-9+/]{40}/;
const KEY_BODY_WINDOW = 400;

function containsPrivateKey(text: string): boolean {
  for (const header of matchesOf(PRIVATE_KEY_HEADER, text)) {
    const bodyStart = header.index! + header[0].length;
    if (KEY_BODY.test(text.slice(bodyStart, bodyStart + KEY_BODY_WINDOW))) return true;
  }
  return false;
}

/**
 * Every match of a global regex. Unlike `String.prototype.matchAll`, which clones the regex on
 * each call (V8 then interprets and re-tiers the clone), this reuses the compiled one.
 */
function* matchesOf(pattern: RegExp, text: string): Generator<RegExpExecArray> {
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) yield match;
}
