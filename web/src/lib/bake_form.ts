// The bake form's pure parts (testable without a browser): the form's fields -> a request,
// and the report's back_hits in words.
import type { Schemas } from '../api/client';
import { int } from './format';

type BakeRequest = Schemas['bake_request'];

// The form's fields -> a request; mixers only for mixforge-cmj.
export function bakeRequest(f: {
  sampler: string;
  spp: string;
  bounces: string;
  texel: string;
  mixers: string;
  source: string;
  twoSided?: boolean;
}): BakeRequest {
  const req: BakeRequest = {
    scene: 'cornell',
    sampler: f.sampler as BakeRequest['sampler'],
    spp: Number(f.spp),
    bounces: Number(f.bounces),
  };
  if (f.texel.trim()) req.texel = Number(f.texel);
  // Sent only when asked: the daemon's default (false) stays the request's default.
  if (f.twoSided) req.two_sided = true;
  const m = f.mixers.trim();
  if (f.sampler === 'mixforge-cmj' && f.source === 'run' && m) req.mixers = { run: m };
  if (f.sampler === 'mixforge-cmj' && f.source === 'functions' && m)
    req.mixers = { function_ids: m.split(/[\s,]+/).filter(Boolean) };
  return req;
}

// The report's back_hits in words: rays that met a face's back, and how many of them read
// black because the face was one-sided (the sign a scene wants --two-sided or a flipped face).
export function backHitsText(b: NonNullable<Schemas['bake_report']['back_hits']>): string {
  const sided = b.two_sided_triangles ? `; ${int(b.two_sided_triangles)} two-sided triangles` : '';
  if (!b.rays) return `no rays${sided}`;
  return `${int(b.rays)} rays on ${int(b.triangles)} triangles, ${int(b.one_sided_rays)} of them on ${int(b.one_sided_triangles)} one-sided (black)${sided}`;
}
