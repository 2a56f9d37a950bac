// A restricted pickle reader for PyTorch state dicts (data.pkl of a torch.save zip). A pickle is a
// program; this reader runs none of it: it accepts only the opcodes a state dict uses (containers,
// strings, numbers, memo, persistent ids) and only these globals, each turned into a plain value here:
//   collections.OrderedDict            -> a dict
//   torch._utils._rebuild_tensor_v2    -> a TensorRef (storage, offset, size, stride)
//   torch._utils._rebuild_tensor       -> the same (older files)
//   torch._utils._rebuild_parameter    -> its tensor (nn.Parameter saved as such)
//   torch.<Float|Half|BFloat16|Double|...>Storage -> the storage's dtype (in persistent ids)
// Anything else (another global, INST / OBJ / NEWOBJ, EXT, a class in BUILD) is refused with one line
// naming the opcode or the global. Sizes read from the stream are checked against what remains of it.
import { DecoderError } from '../gpu/errors';
import { printable } from './printable';

/** PyTorch storage dtypes by storage class, with their element size ('F32'... as safetensors names them). */
export const STORAGE_TYPES: Record<string, { dtype: string; bytes: number }> = {
  FloatStorage: { dtype: 'F32', bytes: 4 },
  HalfStorage: { dtype: 'F16', bytes: 2 },
  BFloat16Storage: { dtype: 'BF16', bytes: 2 },
  DoubleStorage: { dtype: 'F64', bytes: 8 },
  LongStorage: { dtype: 'I64', bytes: 8 },
  IntStorage: { dtype: 'I32', bytes: 4 },
  ShortStorage: { dtype: 'I16', bytes: 2 },
  CharStorage: { dtype: 'I8', bytes: 1 },
  ByteStorage: { dtype: 'U8', bytes: 1 },
  BoolStorage: { dtype: 'BOOL', bytes: 1 },
};

export interface StorageRef {
  kind: 'storage';
  /** the storage's file name in the archive (data/<key>) */
  key: string;
  dtype: string;
  bytes: number;
  /** elements in the storage */
  numel: number;
}

export interface TensorRef {
  kind: 'tensor';
  storage: StorageRef;
  /** in elements */
  offset: number;
  shape: number[];
  stride: number[];
}

/** What a pickle can produce here: plain values, lists, tuples, dicts (Map), tensors. */
export type PickleValue = null | boolean | number | string | Uint8Array | PickleValue[] | Tuple | Map<string | number, PickleValue> | TensorRef | StorageRef | Global;

class Tuple {
  constructor(readonly items: PickleValue[]) {}
}
class Global {
  constructor(readonly name: string) {}
}
const MARK = Symbol('mark');

const ALLOWED_GLOBALS = new Set([
  'collections.OrderedDict',
  'torch._utils._rebuild_tensor_v2',
  'torch._utils._rebuild_tensor',
  'torch._utils._rebuild_parameter',
  ...Object.keys(STORAGE_TYPES).map((s) => `torch.${s}`),
]);

/** Runs the restricted reader over `buf` (a whole data.pkl); returns the unpickled value. */
export function unpickle(buf: Uint8Array, source: string): PickleValue {
  const fail = (what: string): never => {
    throw new DecoderError('bad-input', `${source}: ${what}`);
  };
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const text = new TextDecoder('utf-8', { fatal: false });
  const stack: (PickleValue | typeof MARK)[] = [];
  const marks: number[] = [];
  const memo = new Map<number, PickleValue>();
  let p = 0;
  const need = (n: number, what: string) => {
    if (!(n >= 0) || p + n > buf.byteLength) fail(`pickle ${what} of ${n} bytes at ${p} runs past its end (${buf.byteLength} bytes); truncated or corrupt`);
  };
  const u8 = () => (need(1, 'operand'), buf[p++]!);
  const u16 = () => (need(2, 'operand'), (p += 2), dv.getUint16(p - 2, true));
  const u32 = () => (need(4, 'operand'), (p += 4), dv.getUint32(p - 4, true));
  const i32 = () => (need(4, 'operand'), (p += 4), dv.getInt32(p - 4, true));
  const u64 = () => {
    need(8, 'operand');
    const v = dv.getBigUint64(p, true);
    p += 8;
    return v > BigInt(buf.byteLength) ? buf.byteLength + 1 : Number(v);
  };
  const bytes = (n: number) => (need(n, 'string'), (p += n), buf.subarray(p - n, p));
  const line = () => {
    const end = buf.indexOf(0x0a, p);
    if (end < 0 || end - p > 256) fail(`pickle text operand at ${p} has no end of line`);
    const s = text.decode(buf.subarray(p, end));
    p = end + 1;
    return s;
  };
  const pop = (): PickleValue => {
    const v = stack.pop();
    if (v === undefined || v === MARK) fail('pickle stack underflow; corrupt');
    return v as PickleValue;
  };
  const top = (): PickleValue => {
    const v = stack[stack.length - 1];
    if (v === undefined || v === MARK) fail('pickle stack underflow; corrupt');
    return v as PickleValue;
  };
  const popMark = (): PickleValue[] => {
    const m = marks.pop();
    if (m === undefined) fail('pickle MARK missing; corrupt');
    const items = stack.splice(m!) as PickleValue[];
    items.shift(); // the MARK itself
    return items;
  };
  const dictKey = (k: PickleValue): string | number => {
    if (typeof k === 'string' || typeof k === 'number') return k;
    return fail(`pickle dict key of type ${describe(k)}; a state dict has string keys`);
  };
  const setItems = (d: PickleValue, kv: PickleValue[]) => {
    if (!(d instanceof Map)) fail(`pickle SETITEM on a ${describe(d)}, not a dict`);
    if (kv.length % 2) fail('pickle SETITEMS with an odd number of items; corrupt');
    for (let i = 0; i < kv.length; i += 2) (d as Map<string | number, PickleValue>).set(dictKey(kv[i]!), kv[i + 1]!);
  };
  const global = (mod: string, name: string): Global => {
    const full = printable(`${mod}.${name}`);
    if (!ALLOWED_GLOBALS.has(full)) fail(`pickle refers to ${full.slice(0, 120)}, which a state dict never holds; refused (a pickle is code: only tensors, storages and dicts are read)`);
    return new Global(full);
  };
  const call = (f: PickleValue, args: PickleValue): PickleValue => {
    if (!(f instanceof Global)) return fail(`pickle REDUCE of a ${describe(f)}; refused`);
    const a = args instanceof Tuple ? args.items : fail('pickle REDUCE arguments are not a tuple; corrupt');
    switch (f.name) {
      case 'collections.OrderedDict':
        return new Map();
      case 'torch._utils._rebuild_parameter':
        if (!(a[0] && typeof a[0] === 'object' && 'kind' in a[0] && a[0].kind === 'tensor')) fail('_rebuild_parameter of something that is not a tensor');
        return a[0]!;
      case 'torch._utils._rebuild_tensor':
      case 'torch._utils._rebuild_tensor_v2': {
        const [storage, offset, size, stride] = a;
        const ints = (t: PickleValue) => (t instanceof Tuple && t.items.every((x) => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0) ? (t.items as number[]) : null);
        const shape = ints(size!),
          st = ints(stride!);
        if (
          !(storage && typeof storage === 'object' && 'kind' in storage && storage.kind === 'storage') ||
          typeof offset !== 'number' ||
          !shape ||
          !st ||
          shape.length !== st.length ||
          shape.length > 8
        )
          fail(`${f.name} with arguments that are not (storage, offset, size, stride)`);
        return { kind: 'tensor', storage: storage as StorageRef, offset: offset as number, shape: shape!, stride: st! };
      }
    }
    return fail(`pickle calls ${f.name}; refused`);
  };

  for (;;) {
    if (p >= buf.byteLength) fail(`pickle ends at byte ${p} without STOP; truncated`);
    const op = buf[p++]!;
    switch (op) {
      case 0x80: // PROTO
        if (u8() > 5) fail('pickle protocol above 5');
        break;
      case 0x95: // FRAME
        u64();
        break;
      case 0x2e: // STOP
        if (stack.length !== 1) fail(`pickle STOP with ${stack.length} values on the stack; corrupt`);
        return pop();
      case 0x28: // MARK
        marks.push(stack.length);
        stack.push(MARK);
        break;
      case 0x4e: // NONE
        stack.push(null);
        break;
      case 0x88: // NEWTRUE
        stack.push(true);
        break;
      case 0x89: // NEWFALSE
        stack.push(false);
        break;
      case 0x4b: // BININT1
        stack.push(u8());
        break;
      case 0x4d: // BININT2
        stack.push(u16());
        break;
      case 0x4a: // BININT
        stack.push(i32());
        break;
      case 0x8a: {
        // LONG1: little-endian two's complement of n bytes (n <= 8 here)
        const n = u8();
        if (n > 8) fail(`pickle LONG1 of ${n} bytes; a state dict's integers fit 64 bits`);
        const b = bytes(n);
        let v = 0n;
        for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(b[i]!);
        if (n && b[n - 1]! & 0x80) v -= 1n << BigInt(8 * n);
        stack.push(Number(v));
        break;
      }
      case 0x47: // BINFLOAT (big-endian double)
        need(8, 'float');
        stack.push(dv.getFloat64(p, false));
        p += 8;
        break;
      case 0x58: // BINUNICODE
        stack.push(text.decode(bytes(u32())));
        break;
      case 0x8c: // SHORT_BINUNICODE
        stack.push(text.decode(bytes(u8())));
        break;
      case 0x8d: // BINUNICODE8
        stack.push(text.decode(bytes(u64())));
        break;
      case 0x43: // SHORT_BINBYTES
        stack.push(bytes(u8()));
        break;
      case 0x42: // BINBYTES
        stack.push(bytes(u32()));
        break;
      case 0x29: // EMPTY_TUPLE
        stack.push(new Tuple([]));
        break;
      case 0x85: // TUPLE1
        stack.push(new Tuple([pop()]));
        break;
      case 0x86: {
        // TUPLE2
        const b = pop(),
          a = pop();
        stack.push(new Tuple([a, b]));
        break;
      }
      case 0x87: {
        // TUPLE3
        const c = pop(),
          b = pop(),
          a = pop();
        stack.push(new Tuple([a, b, c]));
        break;
      }
      case 0x74: // TUPLE
        stack.push(new Tuple(popMark()));
        break;
      case 0x5d: // EMPTY_LIST
        stack.push([]);
        break;
      case 0x6c: // LIST
        stack.push(popMark());
        break;
      case 0x7d: // EMPTY_DICT
        stack.push(new Map());
        break;
      case 0x64: {
        // DICT
        const d = new Map<string | number, PickleValue>();
        setItems(d, popMark());
        stack.push(d);
        break;
      }
      case 0x61: {
        // APPEND
        const v = pop();
        const l = top();
        if (!Array.isArray(l)) fail(`pickle APPEND to a ${describe(l)}, not a list`);
        (l as PickleValue[]).push(v);
        break;
      }
      case 0x65: {
        // APPENDS
        const items = popMark();
        const l = top();
        if (!Array.isArray(l)) fail(`pickle APPENDS to a ${describe(l)}, not a list`);
        for (const v of items) (l as PickleValue[]).push(v);
        break;
      }
      case 0x73: {
        // SETITEM
        const v = pop(),
          k = pop();
        setItems(top(), [k, v]);
        break;
      }
      case 0x75: {
        // SETITEMS
        const kv = popMark();
        setItems(top(), kv);
        break;
      }
      case 0x71: // BINPUT
        memo.set(u8(), top());
        break;
      case 0x72: // LONG_BINPUT
        memo.set(u32(), top());
        break;
      case 0x94: // MEMOIZE
        memo.set(memo.size, top());
        break;
      case 0x68: // BINGET
      case 0x6a: {
        // LONG_BINGET
        const k = op === 0x68 ? u8() : u32();
        if (!memo.has(k)) fail(`pickle memo ${k} read before it is written; corrupt`);
        stack.push(memo.get(k)!);
        break;
      }
      case 0x63: {
        // GLOBAL: "module\nname\n"
        const mod = line();
        stack.push(global(mod, line()));
        break;
      }
      case 0x93: {
        // STACK_GLOBAL
        const name = pop(),
          mod = pop();
        if (typeof mod !== 'string' || typeof name !== 'string') fail('pickle STACK_GLOBAL of non-strings; corrupt');
        stack.push(global(mod as string, name as string));
        break;
      }
      case 0x52: {
        // REDUCE
        const args = pop(),
          f = pop();
        stack.push(call(f, args));
        break;
      }
      case 0x62: {
        // BUILD: state set on an OrderedDict (its _metadata) or a tensor (none): dropped, never applied
        pop();
        const o = top();
        if (!(o instanceof Map) && !(o && typeof o === 'object' && 'kind' in o)) fail(`pickle BUILD on a ${describe(o)}; refused`);
        break;
      }
      case 0x51: {
        // BINPERSID: ('storage', storage type, key, location, numel)
        const pid = pop();
        const t = pid instanceof Tuple ? pid.items : [];
        const [tag, type, key, , numel] = t;
        const cls = type instanceof Global ? type.name.replace(/^torch\./, '') : '';
        const st = STORAGE_TYPES[cls];
        if (tag !== 'storage' || !st || typeof key !== 'string' || typeof numel !== 'number' || !Number.isSafeInteger(numel) || numel < 0)
          fail('pickle persistent id is not a torch storage (storage, type, key, location, numel)');
        stack.push({ kind: 'storage', key: key as string, dtype: st!.dtype, bytes: st!.bytes, numel: numel as number });
        break;
      }
      default:
        fail(
          `pickle opcode 0x${op.toString(16).padStart(2, '0')} (${JSON.stringify(String.fromCharCode(op))}) at byte ${p - 1} is not one a state dict uses; refused (a pickle is code: it is never run)`,
        );
    }
  }
}

function describe(v: PickleValue | undefined): string {
  if (v === null) return 'None';
  if (v instanceof Map) return 'dict';
  if (v instanceof Tuple) return 'tuple';
  if (v instanceof Global) return v.name;
  if (Array.isArray(v)) return 'list';
  if (v instanceof Uint8Array) return 'bytes';
  if (typeof v === 'object' && v && 'kind' in v) return v.kind;
  return typeof v;
}
