// Live preview: the exported GLSL, compiled by the browser's WebGL2 (GLSL ES 3.00), hashes
// 2^20 consecutive inputs into an R32UI target; the values are read back, checked against
// the JavaScript reference bit for bit, and drawn as a noise image and as the accumulation
// plot of successive outputs (h(i), h(i+1)), beside a weak baseline (one LCG step) and PCG.
import { h, replace } from '../lib/dom';

export const SIDE = 1024;  // 2^20 values

const VERTEX = `#version 300 es
void main() {
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}`;

// PCG hash (Jarzynski and Olano, JCGT 2020) and one LCG step (Numerical Recipes constants).
const BASELINES = `
uint mf_lcg(uint x) { return x * 1664525u + 1013904223u; }
uint mf_pcg(uint v) {
  uint state = v * 747796405u + 2891336453u;
  uint word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
  return (word >> 22u) ^ word;
}`;

function fragment(code: string, call: string): string {
  return `#version 300 es
precision highp float;
precision highp int;
${code}
${BASELINES}
layout(location = 0) out uint mf_out;
void main() {
  uint i = uint(gl_FragCoord.y) * ${SIDE}u + uint(gl_FragCoord.x);
  mf_out = ${call}(i);
}`;
}

export class ShaderError extends Error {}

function compile(gl: WebGL2RenderingContext, type: number, src: string): WebGLShader {
  const s = gl.createShader(type)!;
  gl.shaderSource(s, src);
  gl.compileShader(s);
  if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new ShaderError(gl.getShaderInfoLog(s) ?? 'compile failed');
  return s;
}

// Runs fn over inputs 0 .. 2^20-1 on the GPU; resolves to the outputs (index = input).
// The read-back goes through a pixel-pack buffer and a fence, so the page never stalls
// waiting for the GPU.
export async function runOnGpu(gl: WebGL2RenderingContext, code: string, call: string): Promise<Uint32Array> {
  const prog = gl.createProgram()!;
  gl.attachShader(prog, compile(gl, gl.VERTEX_SHADER, VERTEX));
  gl.attachShader(prog, compile(gl, gl.FRAGMENT_SHADER, fragment(code, call)));
  gl.linkProgram(prog);
  if (!gl.getProgramParameter(prog, gl.LINK_STATUS)) throw new ShaderError(gl.getProgramInfoLog(prog) ?? 'link failed');
  const tex = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, tex);
  gl.texStorage2D(gl.TEXTURE_2D, 1, gl.R32UI, SIDE, SIDE);
  const fb = gl.createFramebuffer();
  gl.bindFramebuffer(gl.FRAMEBUFFER, fb);
  gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0);
  gl.viewport(0, 0, SIDE, SIDE);
  gl.useProgram(prog);
  gl.drawArrays(gl.TRIANGLES, 0, 3);
  const pbo = gl.createBuffer();
  gl.bindBuffer(gl.PIXEL_PACK_BUFFER, pbo);
  gl.bufferData(gl.PIXEL_PACK_BUFFER, SIDE * SIDE * 16, gl.STREAM_READ);
  gl.readPixels(0, 0, SIDE, SIDE, gl.RGBA_INTEGER, gl.UNSIGNED_INT, 0);
  const sync = gl.fenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0)!;
  gl.flush();
  while (gl.clientWaitSync(sync, 0, 0) === gl.TIMEOUT_EXPIRED) await new Promise((r) => setTimeout(r, 5));
  gl.deleteSync(sync);
  const rgba = new Uint32Array(SIDE * SIDE * 4);
  gl.getBufferSubData(gl.PIXEL_PACK_BUFFER, 0, rgba);
  gl.bindBuffer(gl.PIXEL_PACK_BUFFER, null);
  const out = new Uint32Array(SIDE * SIDE);
  for (let i = 0; i < out.length; i++) out[i] = rgba[i * 4];
  gl.deleteBuffer(pbo); gl.deleteFramebuffer(fb); gl.deleteTexture(tex); gl.deleteProgram(prog);
  return out;
}

// The first 256x256 outputs as grey levels (their top 8 bits).
function noiseImage(values: Uint32Array, width: number): HTMLCanvasElement {
  const c = h('canvas', { width: 256, height: 256, class: 'pixelated' });
  const ctx = c.getContext('2d')!;
  const img = ctx.createImageData(256, 256);
  const shift = Math.max(0, width - 8);
  for (let i = 0; i < 256 * 256; i++) {
    const v = width >= 8 ? (values[i] >>> shift) & 255 : Math.round((values[i] / ((1 << width) - 1)) * 255);
    img.data.set([v, v, v, 255], i * 4);
  }
  ctx.putImageData(img, 0, 0);
  return c;
}

// (h(i), h(i+1)) for all 2^20 - 1 pairs, one pixel per cell of a 256x256 grid, shaded by
// the log of the count: lattice structure of a weak function shows as lines.
function accumulation(values: Uint32Array, width: number): HTMLCanvasElement {
  const N = 256;
  const c = h('canvas', { width: N, height: N, class: 'pixelated' });
  const ctx = c.getContext('2d')!;
  const counts = new Uint32Array(N * N);
  const shift = Math.max(0, width - 8);
  const scale = width >= 8 ? 1 : N / 2 ** width;
  for (let i = 0; i + 1 < values.length; i++) {
    const a = width >= 8 ? values[i] >>> shift : Math.floor(values[i] * scale);
    const b = width >= 8 ? values[i + 1] >>> shift : Math.floor(values[i + 1] * scale);
    counts[(N - 1 - b) * N + a]++;
  }
  let max = 1;
  for (const v of counts) if (v > max) max = v;
  const img = ctx.createImageData(N, N);
  const lmax = Math.log1p(max);
  for (let i = 0; i < counts.length; i++) {
    const v = counts[i] ? 255 - Math.round((Math.log1p(counts[i]) / lmax) * 235) - 20 : 255;
    img.data.set([v, v, v, 255], i * 4);
  }
  ctx.putImageData(img, 0, 0);
  return c;
}

declare global {
  interface Window { mixforgePreview?: { outputs: Uint32Array; width: number; matches: boolean } }
}

export function preview(code: string, call: string, width: number, reference: ((x: number) => number) | null): HTMLElement {
  const box = h('div', { class: 'preview' });
  const status = h('p', { class: 'preview-status', role: 'status' }, 'Compiling in WebGL2…');
  box.appendChild(status);
  const canvas = h('canvas', { width: 1, height: 1 });
  const gl = canvas.getContext('webgl2');
  if (!gl) { status.textContent = 'WebGL2 is not available in this browser.'; return box; }
  // Let the page paint first: SwiftShader takes a moment for 2^20 fragments.
  setTimeout(async () => {
    try {
      const t0 = performance.now();
      const mine = await runOnGpu(gl, code, call);
      const lcg = await runOnGpu(gl, code, 'mf_lcg');
      const pcg = await runOnGpu(gl, code, 'mf_pcg');
      const ms = performance.now() - t0;
      let mismatch = -1;
      if (reference) for (let i = 0; i < mine.length; i++) if (mine[i] !== reference(i)) { mismatch = i; break; }
      window.mixforgePreview = { outputs: mine, width, matches: reference !== null && mismatch < 0 };
      const check = !reference ? 'no JavaScript reference for this width'
        : mismatch < 0 ? `WebGL2 output equals the JavaScript reference on all ${SIDE * SIDE} inputs`
          : `MISMATCH at input ${mismatch}: GPU ${mine[mismatch]}, reference ${reference(mismatch)}`;
      status.className = `preview-status ${mismatch < 0 ? 'ok' : 'error'}`;
      status.dataset.result = mismatch < 0 ? 'match' : 'mismatch';
      status.textContent = `Compiled (GLSL ES 3.00) and ran 3 × 2^20 inputs in ${ms.toFixed(0)} ms. ${check}.`;
      const col = (title: string, v: Uint32Array, w: number) => h('figure', null,
        h('figcaption', null, title), noiseImage(v, w), accumulation(v, w));
      box.appendChild(h('div', { class: 'preview-grid' },
        col('this function', mine, width), col('LCG step (weak)', lcg, 32), col('PCG hash', pcg, 32)));
      box.appendChild(h('p', { class: 'small muted' }, 'Top: outputs of inputs 0..65535 as grey levels (top 8 bits). Bottom: (h(i), h(i+1)) over 2^20 inputs, 256×256 cells, darker = more points.'));
    } catch (e) {
      status.className = 'preview-status error';
      status.dataset.result = 'error';
      replace(status, 'The exported GLSL did not compile in WebGL2: ', h('pre', null, (e as Error).message));
    }
  }, 30);
  return box;
}
