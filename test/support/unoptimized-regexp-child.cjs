// Runs one scan over texts in a Node started with --no-regexp-optimization, and prints which texts
// made it throw (test/support/unoptimized-regexp.ts). The repository's TypeScript is transpiled on
// require with the compiler the repository already has: nothing else here loads TypeScript in a
// plain Node process, and the scans import JSON data, which transpiling file by file handles.
const { readFileSync } = require('node:fs');
const ts = require('typescript');

require.extensions['.ts'] = (module, filename) => {
  const compilerOptions = { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, experimentalDecorators: true, emitDecoratorMetadata: true };
  module._compile(ts.transpileModule(readFileSync(filename, 'utf8'), { compilerOptions, fileName: filename }).outputText, filename);
};

const { modulePath, call, texts, length } = JSON.parse(process.argv[2]);
const scan = new Function('m', 'text', 'require', call).bind(null, require(modulePath));
void (async () => {
  const failures = [];
  for (const [name, prefix, unit] of texts) {
    const text = prefix + unit.repeat(Math.ceil(length / unit.length));
    try {
      await scan(text, require);
    } catch (error) {
      failures.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  process.stdout.write(JSON.stringify(failures));
})();
