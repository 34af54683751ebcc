// The typed fetch layer: openapi-fetch over the types generated from the OpenAPI
// document (schema.d.ts), so a contract change that breaks a call breaks `tsc`.
import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema';

export type Schemas = components['schemas'];
export type RunSummary = Schemas['run_summary'];
export type RunDetail = Schemas['run_detail'];
export type RunConfig = Schemas['run'];
export type ScoredFunction = Schemas['scored_function'];
export type FunctionDetail = Schemas['function_detail'];
export type Problem = Schemas['problem'];
export type RunEvent = Schemas['run_event'];
export type Progress = Schemas['progress'];
// One hall-of-fame entry's summary of its cached quality report.
export type HallOfFameQuality = NonNullable<Schemas['hall_of_fame']['items'][number]['quality']>;
export type RunState = RunSummary['state'];
export type IslandStatus = NonNullable<RunSummary['islands']>[number];

const TOKEN_KEY = 'mixforge.token';

// The bearer token (when the daemon requires one) is asked for once and kept for the
// browser session.
export function token(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}
export function setToken(t: string | null): void {
  if (t) sessionStorage.setItem(TOKEN_KEY, t);
  else sessionStorage.removeItem(TOKEN_KEY);
}

const auth: Middleware = {
  async onRequest({ request }) {
    const t = token();
    if (t) request.headers.set('Authorization', `Bearer ${t}`);
    // State-changing requests carry a JSON body ({} when there are no fields): the daemon
    // requires Content-Type: application/json on POST (CSRF protection).
    if (request.method === 'POST' && request.body === null) {
      const headers = new Headers(request.headers);
      headers.set('Content-Type', 'application/json');
      return new Request(request, { body: '{}', headers });
    }
    return request;
  },
};

export const api = createClient<paths>({ baseUrl: location.origin });
api.use(auth);

// An API error with the RFC 9457 problem the daemon sent (or a synthesised one).
export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail || problem.title);
  }
  get status(): number {
    return this.problem.status;
  }
}

type Result<T> = { data?: T; error?: unknown; response: Response };

// Unwraps an openapi-fetch result: the data, or an ApiError. A 401 asks for the token
// once and retries.
export async function call<T>(make: () => Promise<Result<T>>): Promise<T> {
  let r: Result<T>;
  try {
    r = await make();
  } catch (e) {
    throw new ApiError({
      type: 'about:blank',
      title: 'Network error',
      status: 0,
      detail: `the daemon did not answer (${(e as Error).message})`,
    });
  }
  if (r.response.status === 401) {
    const t = window.prompt('This daemon requires a bearer token (kept for this browser session):');
    if (t) {
      setToken(t.trim());
      return call(make);
    }
  }
  if (r.error !== undefined || !r.response.ok) {
    const e = r.error as Partial<Problem> | undefined;
    throw new ApiError({
      type: e?.type ?? 'about:blank',
      title: e?.title ?? r.response.statusText,
      status: r.response.status,
      detail: e?.detail ?? `HTTP ${r.response.status}`,
      field: e?.field,
      errors: e?.errors,
      line: e?.line,
      column: e?.column,
    });
  }
  return r.data as T;
}
