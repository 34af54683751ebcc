// Number and time formatting for reading: chi2 in scientific notation, rates with units.

export function sci(x: number | null | undefined, digits = 4): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  if (x === 0) return '0';
  return x.toExponential(digits).replace('e+', 'e');
}

export function fixed(x: number | null | undefined, digits = 3): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  return x.toFixed(digits);
}

export function int(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  return Math.round(x).toLocaleString('en-US');
}

export function rate(x: number | null | undefined, unit = '/s'): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  const digits = x >= 100 ? 0 : x >= 10 ? 1 : 2;
  return `${x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })} ${unit}`;
}

export function percent(x: number | null | undefined, digits = 1): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  return `${(x * 100).toFixed(digits)} %`;
}

// Samples as a power of two where they are one (2^22), else grouped digits.
export function samples(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n) || n <= 0) return '–';
  const l = Math.log2(n);
  return Number.isInteger(l) ? `2^${l}` : int(n);
}

export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return '–';
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 1 : 0)} s`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m} min ${Math.floor(seconds % 60)} s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

// Age of a Unix timestamp (seconds) relative to now (seconds).
export function age(unix_s: number | null | undefined, now_s = Date.now() / 1000): string {
  if (unix_s === null || unix_s === undefined || !Number.isFinite(unix_s)) return '–';
  return `${duration(Math.max(0, now_s - unix_s))} ago`;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

// A CSV field: quoted when it holds a separator, quote or line break (RFC 4180).
export function csvField(v: unknown): string {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csv(header: string[], rows: unknown[][]): string {
  return [header, ...rows].map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
}
