// The one error class of the decoder, plus helpers that turn WebGPU error reports into it.
// Owns nothing long-lived. Messages state what was expected and what was found.

export type DecoderErrorCode =
  | 'no-webgpu'
  | 'limits'
  | 'compile'
  | 'validation'
  | 'oom'
  | 'device-lost'
  | 'bad-input'
  | 'unsupported'
  /** the caller's AbortSignal fired (or the worker's cancel()): nothing is wrong with the input or the GPU */
  | 'cancelled'
  /** the decoder (or its worker) was disposed: make a new one */
  | 'disposed'
  /** a bug (a non-DecoderError thrown inside the decoder or its worker): the message is the original one */
  | 'internal';

export class DecoderError extends Error {
  readonly code: DecoderErrorCode;

  constructor(code: DecoderErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DecoderError';
    this.code = code;
  }
}

/**
 * Formats a shader module's compilation messages as `label:line:col: type: message` lines followed by
 * the offending source line, or returns '' when there are no errors.
 */
export function formatCompileInfo(label: string, info: GPUCompilationInfo, source: string): string {
  const lines = source.split('\n');
  const out: string[] = [];
  for (const m of info.messages) {
    if (m.type !== 'error') continue;
    out.push(`${label}:${m.lineNum}:${m.linePos}: ${m.type}: ${m.message}`);
    const text = lines[m.lineNum - 1];
    if (text !== undefined) out.push(`  ${text}`, `  ${' '.repeat(Math.max(0, m.linePos - 1))}^`);
  }
  return out.join('\n');
}

/**
 * Runs `fn` inside validation and out-of-memory error scopes and rethrows the first captured error as
 * a DecoderError ('validation' or 'oom'), prefixed with `what`.
 */
export async function withErrorScopes<T>(device: GPUDevice, what: string, fn: () => T | Promise<T>): Promise<T> {
  device.pushErrorScope('out-of-memory');
  device.pushErrorScope('validation');
  let result: T;
  try {
    result = await fn();
  } finally {
    const validation = await device.popErrorScope();
    const oom = await device.popErrorScope();
    if (validation) throw new DecoderError('validation', `${what}: ${validation.message}`);
    if (oom) throw new DecoderError('oom', `${what}: ${oom.message}`);
  }
  return result;
}

/**
 * A Dawn (or browser) error message as one line, and the innermost debug group it names (the decoder
 * wraps each step's commands in a debug group labelled with the step: Dawn ends a validation message
 * with "Debug group stack:" and one ` > "label"` line per open group, innermost first).
 */
export function summarizeGpuError(message: string): { text: string; group: string | null } {
  const at = message.indexOf('Debug group stack:');
  const body = at < 0 ? message : message.slice(0, at);
  const m = at < 0 ? null : /^\s*>\s*"(.*)"\s*$/m.exec(message.slice(at));
  const group = m ? m[1]!.replace(/\0/g, '') : null;
  const text = body
    .split('\n')
    .map((l) => l.trim().replace(/^- /, ''))
    .filter((l) => l)
    .join(' ')
    .replace(/\0/g, '');
  return { text, group };
}
