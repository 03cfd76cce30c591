/**
 * Scoring time of the smart router for a 200-character and a 20 KB prompt (targets on this machine:
 * p99 under 100 µs and under 1 ms; docs/performance.md, "Targets").  npm run bench:router
 */
import { scoreComplexity } from '../../src/modules/routing/domain/complexity-scorer';
import { microBench, printMicroTable } from '../harness/micro-bench';

const SHORT = 'Can you explain why my Python function returns None instead of the list? I call it with a list of ints and expect the squares back, step by step please.';
const SHORT_200 = SHORT.padEnd(200, ' Thanks a lot for the help.').slice(0, 200);

const CODE_BLOCK = [
  '```ts',
  'export async function handler(req: Request): Promise<Response> {',
  '  const body = await req.json();',
  '  if (!body.items?.length) return new Response("empty", { status: 400 });',
  '  return Response.json({ total: body.items.reduce((a: number, b: number) => a + b, 0) });',
  '}',
  '```',
].join('\n');
const PARAGRAPH =
  'Our distributed order service has p99 latency spikes during peak traffic. First, analyse the architecture below; then propose a migration plan with trade-offs, and finally write the new cache layer. ';
let LONG_20K = '';
while (LONG_20K.length < 20 * 1024) LONG_20K += `${PARAGRAPH}\n${CODE_BLOCK}\n`;
LONG_20K = LONG_20K.slice(0, 20 * 1024);

const score = (text: string) => () => scoreComplexity({ userText: text, messageCount: 1, usesTools: false });

printMicroTable([
  microBench(`router score, ${SHORT_200.length}-character prompt`, score(SHORT_200), { iterations: 50_000 }),
  microBench(`router score, ${LONG_20K.length}-byte prompt`, score(LONG_20K), { warmup: 500, iterations: 5_000 }),
]);
