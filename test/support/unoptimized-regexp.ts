import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** A text to scan: its name, a prefix, then a unit repeated to the length asked. */
export type RunText = readonly [name: string, prefix: string, unit: string];

/**
 * Scans user text as V8 runs patterns late in a long-lived process. Once a process has generated
 * much regexp code (a gateway that has run for days, a Jest worker late in the run), V8 compiles
 * new patterns without its optimisations, and unoptimised a greedy repetition keeps a backtracking
 * entry for every character it consumed: a run of a few MiB overflows V8's backtracking stack
 * ("Maximum call stack size exceeded"), which a fresh process never shows (docs/decisions.md,
 * "Bounded runs in text scans"). `call` is a function body over `m` (the module at `modulePath`),
 * `text` and `require`; it runs on every text in a child Node started with --no-regexp-optimization,
 * and a promise it returns is awaited. Resolves to the texts that made it throw, as `name: message`.
 */
export async function unoptimizedFailures(modulePath: string, call: string, texts: readonly RunText[], length: number): Promise<string[]> {
  const child = join(__dirname, 'unoptimized-regexp-child.cjs');
  const { stdout } = await promisify(execFile)(process.execPath, ['--no-regexp-optimization', child, JSON.stringify({ modulePath, call, texts, length })], {
    maxBuffer: 1024 * 1024,
  });
  return JSON.parse(stdout) as string[];
}

/** Long enough that one backtracking entry per character overflows V8's 64 MiB backtracking stack unoptimised; under the chat body limit. */
export const LONG_RUN = 5 * 1024 * 1024;

/** Runs of each kind of character the scans take in one repetition. */
export const RUNS: readonly RunText[] = [
  ['a Latin word', '', 'x'],
  ['an accented word', '', 'é'],
  ['Latin and Cyrillic in one word', '', 'aж'],
  ['a Han run', '', '漢'],
  ['digits', '', '1'],
  ['digit groups', '', '1 '],
  ['spaces', '', ' '],
  ['tabs', '', '\t'],
  ['blank lines', '', '\n'],
  ['dashes', '', '-'],
  ['equals signs', '', '='],
  ['plus signs', '', '+'],
  ['apostrophes inside a word', '', "a'"],
  ['spaced letters', '', 'a '],
  ['dotted letters', '', 'a.'],
  ['base64', '', 'QUJD'],
  ['inline code never closed', '`', 'x'],
  ['a word after a phrase opening', 'ignore all previous ', 'x'],
  ['a semicolon before spaces', ';', ' '],
  ['a word after a PEM header opening', '-----BEGIN ', 'A'],
];
