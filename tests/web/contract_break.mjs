// Proves that the dashboard's client is bound to the API contract: types generated from a
// mutated copy of schema/ (a response field renamed; an operation removed; a query
// parameter's enum narrowed) must fail `tsc --noEmit`, and the unmutated copy must pass.
// Usage: node contract_break.mjs SOURCE_DIR
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const src = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, '..', '..'));
const web = path.join(src, 'web');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-contract-'));

function typecheck(label, mutate) {
  const dir = path.join(tmp, label);
  fs.cpSync(path.join(src, 'schema'), path.join(dir, 'schema'), { recursive: true });
  mutate(path.join(dir, 'schema'));
  const gen = path.join(dir, 'gen');
  execFileSync(process.execPath, [path.join(web, 'scripts', 'gen-api.mjs'), path.join(dir, 'schema', 'openapi.json'), path.join(gen, 'api', 'schema.d.ts')]);
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
    extends: path.join(web, 'tsconfig.json'),
    compilerOptions: { rootDirs: [path.join(web, 'src'), gen] },
    include: [path.join(web, 'src'), gen],
  }));
  try {
    execFileSync(process.execPath, [path.join(web, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', path.join(dir, 'tsconfig.json')], { encoding: 'utf8' });
    return { ok: true, output: '' };
  } catch (e) {
    return { ok: false, output: String(e.stdout) };
  }
}

const edit = (file, f) => fs.writeFileSync(file, JSON.stringify(f(JSON.parse(fs.readFileSync(file, 'utf8')))));
const cases = [
  ['unchanged', true, () => {}],
  ['response field renamed', false, (s) => edit(path.join(s, 'scored_function.schema.json'), (j) => {
    j.properties.chi2_exact_v2 = j.properties.chi2_exact; delete j.properties.chi2_exact;
    j.required = j.required.map((r) => (r === 'chi2_exact' ? 'chi2_exact_v2' : r));
    return j;
  })],
  ['operation removed', false, (s) => edit(path.join(s, 'openapi.json'), (j) => { delete j.paths['/api/v1/runs/{id}/pause']; return j; })],
  ['query parameter enum narrowed', false, (s) => edit(path.join(s, 'openapi.json'), (j) => {
    j.paths['/api/v1/runs/{id}/pool'].get.parameters.find((p) => p.name === 'order').schema.enum = ['chi2'];
    return j;
  })],
];
let failed = 0;
for (const [label, expectOk, mutate] of cases) {
  const r = typecheck(label.replace(/\W+/g, '_'), mutate);
  const good = r.ok === expectOk;
  if (!good) failed++;
  console.log(`${good ? '[ OK ]' : '[FAIL]'} ${label}: tsc ${r.ok ? 'passed' : 'failed'} (expected ${expectOk ? 'pass' : 'fail'})`);
  if (!r.ok) console.log(r.output.split('\n').slice(0, 3).map((l) => '    ' + l).join('\n'));
}
fs.rmSync(tmp, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
