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

/** Published test or example values: they identify nobody, and developers paste them all the time. */
const PUBLISHED_CARDS = new Set([
  '4242424242424242', '4000056655665556', '4111111111111111', '4012888888881881', '4000000000000002',
  '5555555555554444', '5200828282828210', '5105105105105100', '2223003122003222',
  '378282246310005', '371449635398431', '6011111111111117', '6011000990139424',
  '3056930009020004', '36227206271667', '3566002020360505', '6200000000000005',
]);
const PUBLISHED_SSNS = new Set(['078-05-1120', '219-09-9999', '123-45-6789']);
const PUBLISHED_IBANS = new Set(['GB82WEST12345698765432', 'GB29NWBK60161331926819', 'DE89370400440532013000', 'GB33BUKB20201555555555']);

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
// decimal or a longer number.
const DIGIT_RUN = /(?<![\p{L}\p{N}_/-])(?<!\d[.,])\d+(?:[ -]\d+)*(?![\p{L}\p{N}_]|[.,]\d)/gu;

// How cards are written: contiguous, in fours (the last group may be short), or 4-6-5 / 4-6-4.
const CARD_GROUPING = /^(?:\d{13,19}|\d{4}(?:[ -]\d{4}){2,3}(?:[ -]\d{1,4})?|\d{4}[ -]\d{6}[ -]\d{4,5})$/;

/** Issuer prefixes (ISO/IEC 7812 IIN ranges of the major networks) and the lengths they issue. */
const CARD_NETWORKS: ReadonlyArray<{ readonly prefix: RegExp; readonly lengths: readonly number[] }> = [
  { prefix: /^4/, lengths: [13, 16, 19] }, // Visa
  { prefix: /^(?:5[1-5]|222[1-9]|22[3-9]\d|2[3-6]\d\d|27[01]\d|2720)/, lengths: [16] }, // Mastercard
  { prefix: /^3[47]/, lengths: [15] }, // American Express
  { prefix: /^(?:6011|64[4-9]|65)/, lengths: [16, 17, 18, 19] }, // Discover
  { prefix: /^(?:30[0-5]|3095|3[689])/, lengths: [14, 15, 16, 17, 18, 19] }, // Diners Club
  { prefix: /^35(?:2[89]|[3-8]\d)/, lengths: [16, 17, 18, 19] }, // JCB
  { prefix: /^62/, lengths: [16, 17, 18, 19] }, // UnionPay
  { prefix: /^(?:50|5[6-8]|6)/, lengths: [13, 14, 15, 16, 17, 18, 19] }, // Maestro
];

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
  return (
    CARD_NETWORKS.some(({ prefix, lengths }) => prefix.test(digits) && lengths.includes(digits.length)) &&
    luhnValid(digits) &&
    !PUBLISHED_CARDS.has(digits)
  );
}

function containsCardNumber(text: string): boolean {
  for (const [run] of matchesOf(DIGIT_RUN, text)) {
    // Checked before stripping separators so a 30-digit run is never scanned for a card inside it.
    if (run.length <= 23 && CARD_GROUPING.test(run) && isCardNumber(run.replace(/[ -]/g, ''))) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// US Social Security numbers

// AAA-GG-SSSS anywhere; with spaces, dots or no separator only right after an SSN keyword.
const SSN_DASHED = /(?<![\w-])(\d{3})-(\d{2})-(\d{4})(?![\w-])/g;
const SSN_AFTER_KEYWORD = /(?:\bssn|social security (?:number|no\.?|#))[^\d\n]{0,12}(?<!\d)(\d{3})[ .]?(\d{2})[ .]?(\d{4})(?!\d)/gi;

/** SSA rules: area 001-899 except 666, group 01-99, serial 0001-9999. */
export function isSsn(area: string, group: string, serial: string): boolean {
  const areaNumber = Number(area);
  return (
    areaNumber > 0 && areaNumber < 900 && areaNumber !== 666 &&
    group !== '00' && serial !== '0000' &&
    !PUBLISHED_SSNS.has(`${area}-${group}-${serial}`)
  );
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

/** IBAN length per country (ISO 13616 registry); a country code not listed here is not an IBAN. */
const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24, AE: 23, AL: 28, AT: 20, AZ: 28, BA: 20, BE: 16, BG: 22, BH: 22, BR: 29, BY: 28, CH: 21,
  CR: 22, CY: 28, CZ: 24, DE: 22, DK: 18, DO: 28, EE: 20, EG: 29, ES: 24, FI: 18, FO: 18, FR: 27,
  GB: 22, GE: 22, GI: 23, GL: 18, GR: 27, GT: 28, HR: 21, HU: 28, IE: 22, IL: 23, IQ: 23, IS: 26,
  IT: 27, JO: 30, KW: 30, KZ: 20, LB: 28, LC: 32, LI: 21, LT: 20, LU: 20, LV: 21, MC: 27, MD: 24,
  ME: 22, MK: 19, MR: 27, MT: 31, MU: 30, NL: 18, NO: 15, PK: 24, PL: 28, PS: 29, PT: 25, QA: 29,
  RO: 24, RS: 22, SA: 24, SC: 31, SE: 24, SI: 19, SK: 24, SM: 27, ST: 25, SV: 28, TL: 23, TN: 24,
  TR: 26, UA: 29, VA: 22, VG: 24, XK: 20,
};

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
// the header ("find files containing BEGIN RSA PRIVATE KEY") leaks nothing.
const PRIVATE_KEY_HEADER = /-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----/g;
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
