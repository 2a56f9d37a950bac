// Human-readable numbers for the demo: bytes, seconds, dB.

export function formatBytes(n: number): string {
  if (!Number.isFinite(n)) return '–';
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024,
    i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0)} ${units[i]}`;
}

export function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return '–';
  if (s < 1) return `${(s * 1000).toFixed(0)} ms`;
  if (s < 60) return `${s.toFixed(s < 10 ? 2 : 1)} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${Math.round(s - 60 * m)} s`;
}

export function formatDb(db: number): string {
  return db === Infinity ? '∞ (identical)' : `${db.toFixed(2)} dB`;
}

export function formatShape(shape: readonly number[]): string {
  return `[${shape.join(', ')}]`;
}
