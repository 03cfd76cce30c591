/**
 * `npm run check:layers`: dependency-cruiser with the rules in .dependency-cruiser.cjs (layers and
 * file cycles), then, over the same cruise, cycles between feature modules (src/modules/<name>).
 * dependency-cruiser's rules see files and folders, not the modules they make up: chat importing
 * providers' answer types while providers import chat's request type is no file cycle and no
 * folder cycle, yet it ties the two modules into one (docs/decisions.md, "Tooling").
 */
import { cruise, format } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

const MODULE = /^src\/modules\/([^/]+)\//;

const options = await extractDepcruiseOptions('./.dependency-cruiser.cjs');
const result = await cruise(['src', 'libs'], { ...options, validate: true }, undefined, { tsConfig: extractTSConfig(options.tsConfig.fileName) });
const report = await format(result.output, { outputType: 'err' });
process.stdout.write(report.output);

const cycles = moduleCycles(result.output.modules);
for (const cycle of cycles) {
  process.stdout.write(`  error no-module-cycle: ${cycle.modules.join(' → ')} → ${cycle.modules[0]}\n`);
  for (const edge of cycle.edges) process.stdout.write(`      ${edge}\n`);
}
if (cycles.length > 0) process.stdout.write(`\nx ${cycles.length} cycle(s) between feature modules.\n`);
process.exitCode = report.exitCode > 0 || cycles.length > 0 ? 1 : 0;

/**
 * Each group of feature modules that reach one another (a strongly connected component of the
 * module graph, by Tarjan's algorithm) with one file-level import per module edge inside it, so
 * the report says where to cut.
 */
function moduleCycles(modules) {
  const edges = new Map();
  for (const { source, dependencies } of modules) {
    const from = MODULE.exec(source)?.[1];
    if (!from) continue;
    for (const { resolved } of dependencies) {
      const to = MODULE.exec(resolved)?.[1];
      if (!to || to === from) continue;
      if (!edges.has(from)) edges.set(from, new Map());
      if (!edges.get(from).has(to)) edges.get(from).set(to, `${source} → ${resolved}`);
    }
  }
  const index = new Map();
  const low = new Map();
  const stack = [];
  const components = [];
  const visit = (node) => {
    index.set(node, index.size);
    low.set(node, index.get(node));
    stack.push(node);
    for (const next of edges.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node), index.get(next)));
    }
    if (low.get(node) !== index.get(node)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      component.push(member);
    } while (member !== node);
    if (component.length > 1) components.push(component.sort());
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);
  return components.map((members) => ({
    modules: members,
    edges: members.flatMap((from) => members.filter((to) => edges.get(from)?.has(to)).map((to) => edges.get(from).get(to))),
  }));
}
