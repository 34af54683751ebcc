// Proves that the dashboard's client is bound to the API contract: types generated from a
// mutated copy of schema/ (a response field renamed; an operation removed; a query
// parameter's enum narrowed) must fail `tsc --noEmit`, each with an error naming what the
// mutation changed (so the failure is the mutation's, not the harness's). The unmutated
// document passing is what the build's own type check (target mixforge_web) shows.
// Usage: node contract_break.mjs SOURCE_DIR
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const src = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, '..', '..'));
const web = path.join(src, 'web');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mf-contract-'));

async function typecheck(label, mutate) {
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
    await promisify(execFile)(process.execPath, [path.join(web, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', path.join(dir, 'tsconfig.json')], { encoding: 'utf8' });
    return { ok: true, output: '' };
  } catch (e) {
    return { ok: false, output: String(e.stdout) };
  }
}

const edit = (file, f) => fs.writeFileSync(file, JSON.stringify(f(JSON.parse(fs.readFileSync(file, 'utf8')))));
// [label, mutation, a pattern the type errors must contain]
const cases = [
  ['response field renamed', (s) => edit(path.join(s, 'scored_function.schema.json'), (j) => {
    j.properties.chi2_exact_v2 = j.properties.chi2_exact; delete j.properties.chi2_exact;
    j.required = j.required.map((r) => (r === 'chi2_exact' ? 'chi2_exact_v2' : r));
    return j;
  }), /Property 'chi2_exact' does not exist/],
  ['operation removed', (s) => edit(path.join(s, 'openapi.json'), (j) => { delete j.paths['/api/v1/runs/{id}/pause']; return j; }),
    /'"\/api\/v1\/runs\/\{id\}\/pause"' is not assignable/],
  ['query parameter enum narrowed', (s) => edit(path.join(s, 'openapi.json'), (j) => {
    j.paths['/api/v1/runs/{id}/pool'].get.parameters.find((p) => p.name === 'order').schema.enum = ['chi2'];
    return j;
  }), /Types of property 'order' are incompatible/],
];
// Two at a time (2-core machines).
const results = [];
for (let i = 0; i < cases.length; i += 2) {
  results.push(...await Promise.all(cases.slice(i, i + 2).map(([label, mutate]) => typecheck(label.replace(/\W+/g, '_'), mutate))));
}
let failed = 0;
cases.forEach(([label, , pattern], i) => {
  const r = results[i];
  const good = !r.ok && pattern.test(r.output);
  if (!good) failed++;
  console.log(`${good ? '[ OK ]' : '[FAIL]'} ${label}: tsc ${r.ok ? 'passed' : 'failed'} (expected a failure matching ${pattern})`);
  if (!r.ok) console.log(r.output.split('\n').slice(0, 3).map((l) => '    ' + l.slice(0, 200)).join('\n'));
});
fs.rmSync(tmp, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
