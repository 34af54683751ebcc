// The bake form's pure parts (testable without a browser): the form's fields -> a request,
// and the report's back_hits in words.
import type { Schemas } from '../api/client';
import { int } from './format';

type BakeRequest = Schemas['bake_request'];

// The samplers that take mixers, as the API's schema says (bake_request's "mixers" lists them
// as x-samplers; the daemon's rule, app/bake.hpp, is tested against it): read from the
// OpenAPI document the daemon serves, so the form keeps no copy of the rule. null when the
// document does not say.
export function mixerSamplers(openapi: unknown): string[] | null {
  let node: unknown = openapi;
  for (const key of ['components', 'schemas', 'bake_request', 'properties', 'mixers', 'x-samplers']) {
    if (typeof node !== 'object' || node === null) return null;
    node = (node as Record<string, unknown>)[key];
  }
  return Array.isArray(node) && node.every((s) => typeof s === 'string') ? node : null;
}

// The form's fields -> a request. Mixers only for the samplers that take them
// (mixerSamplers); when those are not known, mixers go as given and the daemon decides.
export function bakeRequest(
  f: {
    sampler: string;
    spp: string;
    bounces: string;
    texel: string;
    mixers: string;
    source: string;
    twoSided?: boolean;
  },
  samplersWithMixers: readonly string[] | null,
): BakeRequest {
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
  const takesMixers = samplersWithMixers === null || samplersWithMixers.includes(f.sampler);
  if (takesMixers && f.source === 'run' && m) req.mixers = { run: m };
  if (takesMixers && f.source === 'functions' && m) req.mixers = { function_ids: m.split(/[\s,]+/).filter(Boolean) };
  return req;
}

// The report's back_hits in words: rays that met a face's back, and how many of them read
// black because the face was one-sided (the sign a scene wants --two-sided or a flipped face).
export function backHitsText(b: NonNullable<Schemas['bake_report']['back_hits']>): string {
  const sided = b.two_sided_triangles ? `; ${int(b.two_sided_triangles)} two-sided triangles` : '';
  if (!b.rays) return `no rays${sided}`;
  return `${int(b.rays)} rays on ${int(b.triangles)} triangles, ${int(b.one_sided_rays)} of them on ${int(b.one_sided_triangles)} one-sided (black)${sided}`;
}
