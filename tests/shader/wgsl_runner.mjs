// Validates and runs WGSL compute shaders in headless Chromium (WebGPU on SwiftShader).
// Usage: node wgsl_runner.mjs DIR
// DIR/manifest.json: [{"label", "count", "out_words"}]; DIR/<label>.wgsl: the shader (entry
// point "main", binding 0 = input array, binding 1 = output array<u32>); DIR/<label>.in:
// input words. Writes DIR/<label>.messages.json (getCompilationInfo() messages, or an
// "error" entry when pipeline creation or execution failed) and DIR/<label>.out.
import { chromium } from 'playwright-core';
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const dir = process.argv[2];
if (!dir) { console.error('usage: node wgsl_runner.mjs DIR'); process.exit(2); }
const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
const safe = (name) => /^[A-Za-z0-9_]+$/.test(name);

const page_html = '<!doctype html><title>mixforge wgsl</title>';
const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  const [, kind, file] = url.pathname.split('/');
  if (req.method === 'GET' && url.pathname === '/') {
    res.writeHead(200, { 'content-type': 'text/html' });
    return res.end(page_html);
  }
  if (req.method === 'GET' && kind === 'file' && /^[A-Za-z0-9_]+\.(wgsl|in)$/.test(file)) {
    return fs.readFile(path.join(dir, file), (err, data) => {
      if (err) { res.writeHead(404); return res.end(); }
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(data);
    });
  }
  if (req.method === 'POST' && (kind === 'out' || kind === 'messages') && safe(file)) {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const name = kind === 'out' ? `${file}.out` : `${file}.messages.json`;
      fs.writeFileSync(path.join(dir, name), Buffer.concat(chunks));
      res.writeHead(204);
      res.end();
    });
    return;
  }
  res.writeHead(404);
  res.end();
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync',
         '--enable-unsafe-swiftshader', '--enable-unsafe-webgpu'],
});
let status = 0;
try {
  const page = await browser.newPage();
  page.on('console', (m) => console.log('[page]', m.text()));
  await page.goto(origin + '/');
  const summary = await page.evaluate(async (cases) => {
    if (!navigator.gpu) return { fatal: 'navigator.gpu is missing (WebGPU disabled?)' };
    const adapter = await navigator.gpu.requestAdapter();
    if (!adapter) return { fatal: 'no WebGPU adapter' };
    const device = await adapter.requestDevice();
    const post = (url, body) => fetch(url, { method: 'POST', body });
    const done = [];
    for (const c of cases) {
      const code = await (await fetch(`/file/${c.label}.wgsl`)).text();
      const input = await (await fetch(`/file/${c.label}.in`)).arrayBuffer();
      const module = device.createShaderModule({ code });
      const info = await module.getCompilationInfo();
      const messages = info.messages.map((m) => ({ type: m.type, line: m.lineNum, column: m.linePos, message: m.message }));
      if (messages.some((m) => m.type === 'error')) {
        await post(`/messages/${c.label}`, JSON.stringify(messages));
        done.push(c.label + ': compile error');
        continue;
      }
      device.pushErrorScope('validation');
      const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
      const bytesOut = c.count * c.out_words * 4;
      const bin = device.createBuffer({ size: input.byteLength, usage: GPUBufferUsage.STORAGE, mappedAtCreation: true });
      new Uint8Array(bin.getMappedRange()).set(new Uint8Array(input));
      bin.unmap();
      const bout = device.createBuffer({ size: bytesOut, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
      const bread = device.createBuffer({ size: bytesOut, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      const group = device.createBindGroup({
        layout: pipeline.getBindGroupLayout(0),
        entries: [{ binding: 0, resource: { buffer: bin } }, { binding: 1, resource: { buffer: bout } }],
      });
      const enc = device.createCommandEncoder();
      const pass = enc.beginComputePass();
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, group);
      pass.dispatchWorkgroups(c.count / 64);
      pass.end();
      enc.copyBufferToBuffer(bout, 0, bread, 0, bytesOut);
      device.queue.submit([enc.finish()]);
      const err = await device.popErrorScope();
      if (err) {
        messages.push({ type: 'error', line: 0, column: 0, message: 'pipeline: ' + err.message });
        await post(`/messages/${c.label}`, JSON.stringify(messages));
        done.push(c.label + ': pipeline error');
        continue;
      }
      await bread.mapAsync(GPUMapMode.READ);
      await post(`/out/${c.label}`, bread.getMappedRange().slice(0));
      bread.unmap();
      bin.destroy(); bout.destroy(); bread.destroy();
      await post(`/messages/${c.label}`, JSON.stringify(messages));
      done.push(c.label + ': ran');
    }
    return { adapter: adapter.info ? `${adapter.info.vendor} ${adapter.info.architecture} ${adapter.info.description}` : '', done };
  }, manifest);
  if (summary.fatal) { console.error(summary.fatal); status = 3; }
  else console.log(`adapter: ${summary.adapter}\n${summary.done.join('\n')}`);
} catch (e) {
  console.error(String(e && e.stack || e));
  status = 4;
} finally {
  await browser.close();
  server.close();
}
process.exit(status);
