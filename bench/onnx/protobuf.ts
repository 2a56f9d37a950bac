// A minimal ONNX protobuf writer (onnx.proto, proto2 wire format): ModelProto, GraphProto, NodeProto,
// TensorProto (raw_data), ValueInfoProto, AttributeProto (int, float, string, ints, floats, tensor).
// No dependencies. Messages are built bottom-up as lists of byte parts so that large initializers
// (Float32Array views) are copied exactly once, into the final buffer.
//
// Field numbers (onnx/onnx.proto):
//   ModelProto      ir_version 1, producer_name 2, producer_version 3, graph 7, opset_import 8
//   OperatorSetId   domain 1, version 2
//   GraphProto      node 1, name 2, initializer 5, input 11, output 12, value_info 13
//   NodeProto       input 1, output 2, name 3, op_type 4, attribute 5, domain 7
//   AttributeProto  name 1, f 2, i 3, s 4, t 5, floats 7, ints 8, type 20
//   TensorProto     dims 1, data_type 2, name 8, raw_data 9, external_data 13 (key 1, value 2), data_location 14
//   ValueInfoProto  name 1, type 2;  TypeProto tensor_type 1;  TypeProto.Tensor elem_type 1, shape 2
//   TensorShapeProto dim 1;  Dimension dim_value 1, dim_param 2

/** ONNX TensorProto.DataType values used here. */
export const DataType = { float: 1, int64: 7 } as const;
export type ElemType = keyof typeof DataType;

export type AttrDef =
  | { type: 'int'; value: number }
  | { type: 'float'; value: number }
  | { type: 'string'; value: string }
  | { type: 'ints'; value: readonly number[] }
  | { type: 'floats'; value: readonly number[] }
  | { type: 'tensor'; value: TensorDef };

/** Attribute constructors: `{ axes: attr.ints([1]), keepdims: attr.int(1) }`. */
export const attr = {
  int: (value: number): AttrDef => ({ type: 'int', value }),
  float: (value: number): AttrDef => ({ type: 'float', value }),
  string: (value: string): AttrDef => ({ type: 'string', value }),
  ints: (value: readonly number[]): AttrDef => ({ type: 'ints', value }),
  floats: (value: readonly number[]): AttrDef => ({ type: 'floats', value }),
  tensor: (value: TensorDef): AttrDef => ({ type: 'tensor', value }),
};

export interface TensorDef {
  name: string;
  dims: readonly number[];
  /** float -> Float32Array, int64 -> BigInt64Array (stored little-endian as raw_data) */
  data: Float32Array | BigInt64Array;
  /** store the data in an external file instead (data_location EXTERNAL; `data` only gives the type) */
  external?: { location: string; offset: number; length: number };
}

export interface NodeDef {
  op: string;
  inputs: readonly string[];
  outputs: readonly string[];
  name?: string;
  attrs?: Record<string, AttrDef>;
  domain?: string;
}

export interface ValueInfoDef {
  name: string;
  elemType: ElemType;
  /** numbers are fixed sizes, strings symbolic dimensions */
  shape: readonly (number | string)[];
}

export interface GraphDef {
  name: string;
  nodes: readonly NodeDef[];
  initializers: readonly TensorDef[];
  inputs: readonly ValueInfoDef[];
  outputs: readonly ValueInfoDef[];
}

export interface ModelDef {
  graph: GraphDef;
  /** default-domain opset version (17 here: ReduceL2 / ReduceSumSquare take `axes` as an attribute) */
  opset: number;
  /** default 8 (the IR version of opset 17) */
  irVersion?: number;
  producer?: string;
}

const utf8 = new TextEncoder();
/** Protobuf's own limit on a serialized message; onnxruntime refuses larger models without external data. */
export const MAX_PROTO_BYTES = 2 ** 31 - 1;

/** One message under construction: its encoded parts (not yet concatenated) and their total length. */
class Msg {
  readonly parts: Uint8Array[] = [];
  length = 0;

  private push(b: Uint8Array): void {
    this.parts.push(b);
    this.length += b.byteLength;
  }

  private varintRaw(v: bigint | number): void {
    // int64 fields: negative values are their 64-bit two's complement (10 bytes)
    let x = BigInt.asUintN(64, BigInt(v));
    const out: number[] = [];
    while (x >= 0x80n) {
      out.push(Number(x & 0x7fn) | 0x80);
      x >>= 7n;
    }
    out.push(Number(x));
    this.push(Uint8Array.from(out));
  }

  private tag(field: number, wire: number): void {
    this.varintRaw((field << 3) | wire);
  }

  varint(field: number, v: number | bigint): this {
    if (typeof v === 'number' && !Number.isSafeInteger(v)) throw new Error(`protobuf: ${v} is not an integer (field ${field})`);
    this.tag(field, 0);
    this.varintRaw(v);
    return this;
  }

  float(field: number, v: number): this {
    this.tag(field, 5);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, v, true);
    this.push(b);
    return this;
  }

  bytes(field: number, b: Uint8Array): this {
    this.tag(field, 2);
    this.varintRaw(b.byteLength);
    if (b.byteLength) this.push(b);
    return this;
  }

  string(field: number, s: string): this {
    return this.bytes(field, utf8.encode(s));
  }

  msg(field: number, m: Msg): this {
    this.tag(field, 2);
    this.varintRaw(m.length);
    for (const p of m.parts) this.push(p);
    return this;
  }

  toBytes(): Uint8Array {
    if (this.length > MAX_PROTO_BYTES) throw new Error(`ONNX model is ${this.length} bytes, above protobuf's 2 GiB limit (weights would need ONNX external data, not implemented here)`);
    const out = new Uint8Array(this.length);
    let o = 0;
    for (const p of this.parts) {
      out.set(p, o);
      o += p.byteLength;
    }
    return out;
  }
}

function tensorMsg(t: TensorDef): Msg {
  const n = t.dims.reduce((a, b) => a * b, 1);
  const m = new Msg();
  for (const d of t.dims) m.varint(1, d);
  m.varint(2, t.data instanceof Float32Array ? DataType.float : DataType.int64);
  m.string(8, t.name);
  if (t.external) {
    // external_data (13): StringStringEntryProto { key 1, value 2 }; data_location (14): EXTERNAL = 1
    const { location, offset, length } = t.external;
    if (length !== n * t.data.BYTES_PER_ELEMENT) throw new Error(`ONNX tensor ${t.name}: external length ${length} for dims [${t.dims}]`);
    for (const [k, v] of [
      ['location', location],
      ['offset', String(offset)],
      ['length', String(length)],
    ] as const)
      m.msg(13, new Msg().string(1, k).string(2, v));
    return m.varint(14, 1);
  }
  if (t.data.length !== n) throw new Error(`ONNX tensor ${t.name}: ${t.data.length} values for dims [${t.dims}]`);
  // raw_data is little-endian; typed arrays are in platform order, which is little-endian on every WebGPU target
  m.bytes(9, new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
  return m;
}

function attrMsg(name: string, a: AttrDef): Msg {
  const m = new Msg().string(1, name);
  switch (a.type) {
    case 'float':
      return m.float(2, a.value).varint(20, 1);
    case 'int':
      return m.varint(3, a.value).varint(20, 2);
    case 'string':
      return m.string(4, a.value).varint(20, 3);
    case 'tensor':
      return m.msg(5, tensorMsg(a.value)).varint(20, 4);
    case 'floats':
      for (const v of a.value) m.float(7, v);
      return m.varint(20, 6);
    case 'ints':
      for (const v of a.value) m.varint(8, v);
      return m.varint(20, 7);
  }
}

function nodeMsg(n: NodeDef): Msg {
  const m = new Msg();
  for (const i of n.inputs) m.string(1, i);
  for (const o of n.outputs) m.string(2, o);
  if (n.name) m.string(3, n.name);
  m.string(4, n.op);
  for (const [k, a] of Object.entries(n.attrs ?? {})) m.msg(5, attrMsg(k, a));
  if (n.domain) m.string(7, n.domain);
  return m;
}

function valueInfoMsg(v: ValueInfoDef): Msg {
  const shape = new Msg();
  for (const d of v.shape) shape.msg(1, typeof d === 'number' ? new Msg().varint(1, d) : new Msg().string(2, d));
  const tensorType = new Msg().varint(1, DataType[v.elemType]).msg(2, shape);
  return new Msg().string(1, v.name).msg(2, new Msg().msg(1, tensorType));
}

/** Serializes a model to ONNX protobuf bytes. */
export function encodeModel(model: ModelDef): Uint8Array {
  const g = model.graph;
  const graph = new Msg();
  for (const n of g.nodes) graph.msg(1, nodeMsg(n));
  graph.string(2, g.name);
  for (const t of g.initializers) graph.msg(5, tensorMsg(t));
  for (const v of g.inputs) graph.msg(11, valueInfoMsg(v));
  for (const v of g.outputs) graph.msg(12, valueInfoMsg(v));
  return new Msg()
    .varint(1, model.irVersion ?? 8)
    .string(2, model.producer ?? 'wan-vae-webgpu bench/onnx')
    .string(3, '0.1.0')
    .msg(7, graph)
    .msg(8, new Msg().string(1, '').varint(2, model.opset))
    .toBytes();
}
