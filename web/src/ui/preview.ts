// Live preview: the exported GLSL, compiled by the browser's WebGL2 (GLSL ES 3.00), hashes
// 2^20 consecutive inputs into an R32UI target; the values are read back, checked against
// the JavaScript reference bit for bit, and drawn as a noise image and as the accumulation
// plot of successive outputs (h(i), h(i+1)), beside a weak baseline (one LCG step) and PCG;
// then each of the three as the hash of mixforge-cmj sample sets (ranks and jitters computed
// in WebGL2, checked against lib/cmj.ts bit for bit and for stratification), drawn on the
// disk and the hemisphere.
import { h, replace } from '../lib/dom';
import {
  cmjInts,
  cmjPoint,
  concentricDisk,
  cosineHemisphere,
  LANES,
  lcg as lcgJs,
  pcg as pcgJs,
  stratified,
  widthMask,
  type CmjInts,
} from '../lib/cmj';

export const SIDE = 1024; // 2^20 values

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

// The start of every fragment shader here: the exported code and the baselines.
function fragmentHeader(code: string): string {
  return `#version 300 es
precision highp float;
precision highp int;
${code}
${BASELINES}`;
}

function fragment(code: string, call: string): string {
  return `${fragmentHeader(code)}
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

// Draws one full-target triangle with the fragment shader into a w x h integer target and
// reads it back (RGBA_INTEGER / UNSIGNED_INT, which WebGL2 always supports for integer
// targets). The read-back goes through a pixel-pack buffer and a fence, so the page never
// stalls waiting for the GPU. Resolves to w * h * 4 words, row by row.
async function gpuPass(
  gl: WebGL2RenderingContext,
  fragmentSource: string,
  w: number,
  ht: number,
  format: number,
): Promise<Uint32Array> {
  const prog = gl.createProgram()!;
  gl.attachShader(prog, compile(gl, gl.VERTEX_SHADER, VERTEX));
  gl.attachShader(prog, compile(gl, gl.FRAGMENT_SHADER, fragmentSource));
  gl.linkProgram(prog);
  if (!gl.getProgramParameter(prog, gl.LINK_STATUS)) throw new ShaderError(gl.getProgramInfoLog(prog) ?? 'link failed');
  const tex = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_2D, tex);
  gl.texStorage2D(gl.TEXTURE_2D, 1, format, w, ht);
  const fb = gl.createFramebuffer();
  gl.bindFramebuffer(gl.FRAMEBUFFER, fb);
  gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0);
  gl.viewport(0, 0, w, ht);
  gl.useProgram(prog);
  gl.drawArrays(gl.TRIANGLES, 0, 3);
  const pbo = gl.createBuffer();
  gl.bindBuffer(gl.PIXEL_PACK_BUFFER, pbo);
  gl.bufferData(gl.PIXEL_PACK_BUFFER, w * ht * 16, gl.STREAM_READ);
  gl.readPixels(0, 0, w, ht, gl.RGBA_INTEGER, gl.UNSIGNED_INT, 0);
  const sync = gl.fenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0)!;
  gl.flush();
  while (gl.clientWaitSync(sync, 0, 0) === gl.TIMEOUT_EXPIRED) await new Promise((r) => setTimeout(r, 5));
  gl.deleteSync(sync);
  const rgba = new Uint32Array(w * ht * 4);
  gl.getBufferSubData(gl.PIXEL_PACK_BUFFER, 0, rgba);
  gl.bindBuffer(gl.PIXEL_PACK_BUFFER, null);
  gl.deleteBuffer(pbo);
  gl.deleteFramebuffer(fb);
  gl.deleteTexture(tex);
  gl.deleteProgram(prog);
  return rgba;
}

// Runs fn over inputs 0 .. 2^20-1 on the GPU; resolves to the outputs (index = input).
export async function runOnGpu(gl: WebGL2RenderingContext, code: string, call: string): Promise<Uint32Array> {
  const rgba = await gpuPass(gl, fragment(code, call), SIDE, SIDE, gl.R32UI);
  const out = new Uint32Array(SIDE * SIDE);
  for (let i = 0; i < out.length; i++) out[i] = rgba[i * 4];
  return out;
}

// mixforge-cmj on the GPU (lib/cmj.ts is the same construction in JavaScript): one fragment
// per sample s (x) and pattern p (y, p = 1..CMJ_PATTERNS) writes the sample's column and row
// ranks and its two raw jitter hashes, with `call` as the hash of every lane.
export const CMJ_M = 16,
  CMJ_PATTERNS = 4;
function cmjFragment(code: string, call: string, width: number): string {
  const mask = `${widthMask(width)}u`;
  return `${fragmentHeader(code)}
layout(location = 0) out uvec4 mf_out;
uint mf_H(uint x) { return ${call}(x & ${mask}) & ${mask}; }
uint mf_compact(uint v) {
  v &= 0x55555555u;
  v = (v | (v >> 1u)) & 0x33333333u;
  v = (v | (v >> 2u)) & 0x0f0f0f0fu;
  v = (v | (v >> 4u)) & 0x00ff00ffu;
  return (v | (v >> 8u)) & 0x0000ffffu;
}
void main() {
  uint s = uint(gl_FragCoord.x);
  uint p = uint(gl_FragCoord.y) + 1u;
  uint c0 = (p * ${LANES[0]}u) & ${mask}, c1 = (p * ${LANES[1]}u) & ${mask};
  uint c2 = (p * ${LANES[2]}u) & ${mask}, c3 = (p * ${LANES[3]}u) & ${mask};
  uint i = mf_compact(s), j = mf_compact(s >> 1u);
  uint kx = mf_H(i ^ c0), ky = mf_H(j ^ c1);
  uint sx = 0u, sy = 0u;
  for (uint k = 0u; k < ${CMJ_M}u; ++k) {
    if (mf_H(k ^ c0) < kx) ++sx;
    if (mf_H(k ^ c1) < ky) ++sy;
  }
  mf_out = uvec4(sx, sy, mf_H(s ^ c2), mf_H(s ^ c3));
}`;
}

// Resolves to [pattern][sample] integer parts.
export async function cmjOnGpu(
  gl: WebGL2RenderingContext,
  code: string,
  call: string,
  width: number,
): Promise<CmjInts[][]> {
  const n = CMJ_M * CMJ_M;
  const rgba = await gpuPass(gl, cmjFragment(code, call, width), n, CMJ_PATTERNS, gl.RGBA32UI);
  return Array.from({ length: CMJ_PATTERNS }, (_, p) =>
    Array.from({ length: n }, (_, s) => {
      const o = (p * n + s) * 4;
      return { sx: rgba[o], sy: rgba[o + 1], hz: rgba[o + 2], hw: rgba[o + 3] };
    }),
  );
}

function cmjMatches(gpu: CmjInts[][], hash: (x: number) => number, width: number): boolean {
  return gpu.every((set, p) =>
    set.every((c, s) => {
      const r = cmjInts(hash, width, CMJ_M, s, p + 1);
      return r.sx === c.sx && r.sy === c.sy && r.hz === c.hz && r.hw === c.hw;
    }),
  );
}

// The colours of the page's theme (canvas drawing does not see CSS variables).
function themeColour(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

const PLOT = 180;
// The first pattern's points on the unit disk (concentric map), the disk's edge drawn.
function diskPlot(points: [number, number][]): HTMLCanvasElement {
  const c = h('canvas', {
    width: PLOT,
    height: PLOT,
    class: 'cmj-disk',
    role: 'img',
    'aria-label': 'CMJ points on the disk',
  });
  const ctx = c.getContext('2d')!;
  const r = PLOT / 2 - 4,
    cx = PLOT / 2,
    cy = PLOT / 2;
  ctx.strokeStyle = themeColour('--line', '#ccc');
  ctx.beginPath();
  ctx.arc(cx, cy, r, 0, 2 * Math.PI);
  ctx.stroke();
  ctx.fillStyle = themeColour('--accent', '#2f6fdf');
  for (const [x, y] of points) {
    const [dx, dy] = concentricDisk(x, y);
    ctx.fillRect(cx + dx * r - 1, cy - dy * r - 1, 2.5, 2.5);
  }
  return c;
}

// The same points as cosine-weighted directions on the hemisphere, seen from 30 degrees
// above the horizon: the rim is an ellipse; nearer points are drawn darker.
function hemispherePlot(points: [number, number][]): HTMLCanvasElement {
  const c = h('canvas', {
    width: PLOT,
    height: PLOT * 0.7,
    class: 'cmj-hemisphere',
    role: 'img',
    'aria-label': 'CMJ directions on the hemisphere',
  });
  const ctx = c.getContext('2d')!;
  const e = Math.PI / 6,
    r = PLOT / 2 - 4,
    cx = PLOT / 2,
    base = PLOT * 0.7 - r * Math.sin(e) - 4;
  ctx.strokeStyle = themeColour('--line', '#ccc');
  ctx.beginPath();
  ctx.ellipse(cx, base, r, r * Math.sin(e), 0, 0, 2 * Math.PI);
  ctx.stroke();
  ctx.beginPath();
  ctx.arc(cx, base, r, Math.PI, 2 * Math.PI);
  ctx.stroke();
  const fg = themeColour('--accent', '#2f6fdf');
  for (const [x, y] of points) {
    const [dx, dy, dz] = cosineHemisphere(x, y);
    ctx.globalAlpha = 0.45 + (0.55 * (1 - dy)) / 2; // the far side (dy > 0) fainter
    ctx.fillStyle = fg;
    ctx.fillRect(cx + dx * r - 1, base - (dz * Math.cos(e) - dy * Math.sin(e)) * r - 1, 2.5, 2.5);
  }
  ctx.globalAlpha = 1;
  return c;
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
  interface Window {
    mixforgePreview?: {
      outputs: Uint32Array;
      width: number;
      matches: boolean;
      cmj?: { samples: number; patterns: number; matches: boolean; stratified: boolean; points: [number, number][] };
    };
  }
}

// The function, one LCG step and PCG as the hash of mixforge-cmj sets: CMJ_PATTERNS sets of
// CMJ_M^2 samples each on the GPU, checked against the JavaScript construction bit for bit
// and for stratification; the first set of each drawn on the disk and the hemisphere.
async function cmjViews(
  gl: WebGL2RenderingContext,
  code: string,
  call: string,
  width: number,
  reference: ((x: number) => number) | null,
): Promise<HTMLElement> {
  const status = h('p', { class: 'preview-cmj', role: 'status' }, 'Building CMJ sets in WebGL2…');
  const wrap = h('div', { class: 'cmj-views' }, h('h3', null, 'As the hash of CMJ sample sets (mixforge-cmj)'), status);
  // 16 keys k ^ c must be distinct within the width.
  if (width < 4) {
    status.dataset.result = 'skipped';
    status.textContent = `CMJ needs keys of at least 4 bits; this function has ${width}.`;
    return wrap;
  }
  const hashes = [
    { title: 'this function', call, width, js: reference },
    { title: 'LCG step (weak)', call: 'mf_lcg', width: 32, js: lcgJs as (x: number) => number },
    { title: 'PCG hash', call: 'mf_pcg', width: 32, js: pcgJs as (x: number) => number },
  ];
  let matches = true,
    strat = true;
  let own: [number, number][] = [];
  const figures: HTMLElement[] = [];
  for (const x of hashes) {
    const gpu = await cmjOnGpu(gl, code, x.call, x.width);
    matches &&= x.js !== null && cmjMatches(gpu, x.js, x.width);
    strat &&= gpu.every((set) => stratified(set, CMJ_M));
    const points = gpu[0].map((c, s) => cmjPoint(c, s, CMJ_M, x.width));
    if (x.call === call) own = points;
    figures.push(h('figure', null, h('figcaption', null, x.title), diskPlot(points), hemispherePlot(points)));
  }
  if (window.mixforgePreview)
    window.mixforgePreview.cmj = {
      samples: CMJ_M * CMJ_M,
      patterns: CMJ_PATTERNS,
      matches,
      stratified: strat,
      points: own,
    };
  const ok = matches && strat;
  status.className = `preview-cmj ${ok ? 'ok' : 'error'}`;
  status.dataset.result = ok ? 'match' : 'mismatch';
  status.textContent =
    `${CMJ_PATTERNS} sets of ${CMJ_M * CMJ_M} samples per hash: ranks and jitters from WebGL2 ` +
    `${matches ? 'equal' : 'DIFFER FROM'} the JavaScript construction; ${strat ? 'every set is' : 'NOT every set is'} ` +
    `correlated multi-jittered (one sample per cell, per column stratum and per row stratum).`;
  wrap.appendChild(h('div', { class: 'preview-grid' }, figures));
  wrap.appendChild(
    h(
      'p',
      { class: 'small muted' },
      `Top: the first set's ${CMJ_M * CMJ_M} points on the disk (concentric map). ` +
        'Bottom: the same points as cosine-weighted directions on the hemisphere, seen from 30° above the horizon. ' +
        'Stratification holds for any bijective hash; a weak hash shows as regular structure inside the strata.',
    ),
  );
  return wrap;
}

export function preview(
  code: string,
  call: string,
  width: number,
  reference: ((x: number) => number) | null,
): HTMLElement {
  const box = h('div', { class: 'preview' });
  const status = h('p', { class: 'preview-status', role: 'status' }, 'Compiling in WebGL2…');
  box.appendChild(status);
  const canvas = h('canvas', { width: 1, height: 1 });
  const gl = canvas.getContext('webgl2');
  if (!gl) {
    status.textContent = 'WebGL2 is not available in this browser.';
    return box;
  }
  // Let the page paint first: SwiftShader takes a moment for 2^20 fragments.
  setTimeout(async () => {
    try {
      const t0 = performance.now();
      const mine = await runOnGpu(gl, code, call);
      const lcg = await runOnGpu(gl, code, 'mf_lcg');
      const pcg = await runOnGpu(gl, code, 'mf_pcg');
      const ms = performance.now() - t0;
      let mismatch = -1;
      if (reference)
        for (let i = 0; i < mine.length; i++)
          if (mine[i] !== reference(i)) {
            mismatch = i;
            break;
          }
      window.mixforgePreview = { outputs: mine, width, matches: reference !== null && mismatch < 0 };
      const check = !reference
        ? 'no JavaScript reference for this width'
        : mismatch < 0
          ? `WebGL2 output equals the JavaScript reference on all ${SIDE * SIDE} inputs`
          : `MISMATCH at input ${mismatch}: GPU ${mine[mismatch]}, reference ${reference(mismatch)}`;
      status.className = `preview-status ${mismatch < 0 ? 'ok' : 'error'}`;
      status.dataset.result = mismatch < 0 ? 'match' : 'mismatch';
      status.textContent = `Compiled (GLSL ES 3.00) and ran 3 × 2^20 inputs in ${ms.toFixed(0)} ms. ${check}.`;
      const col = (title: string, v: Uint32Array, w: number) =>
        h('figure', null, h('figcaption', null, title), noiseImage(v, w), accumulation(v, w));
      box.appendChild(
        h(
          'div',
          { class: 'preview-grid' },
          col('this function', mine, width),
          col('LCG step (weak)', lcg, 32),
          col('PCG hash', pcg, 32),
        ),
      );
      box.appendChild(
        h(
          'p',
          { class: 'small muted' },
          'Top: outputs of inputs 0..65535 as grey levels (top 8 bits). Bottom: (h(i), h(i+1)) over 2^20 inputs, 256×256 cells, darker = more points.',
        ),
      );
      box.appendChild(await cmjViews(gl, code, call, width, reference));
    } catch (e) {
      status.className = 'preview-status error';
      status.dataset.result = 'error';
      replace(status, 'The exported GLSL did not compile in WebGL2: ', h('pre', null, (e as Error).message));
    }
  }, 30);
  return box;
}
