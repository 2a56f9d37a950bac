"""safetensors read and written with numpy alone (no torch, no safetensors package): wan_vae.py re-exports both, and
blend.py's `delta` runs on a machine without PyTorch."""
import json
import struct

import numpy as np


_DT = {'F32': np.float32, 'F16': np.float16, 'F64': np.float64, 'I64': np.int64, 'I32': np.int32, 'U8': np.uint8}


def read_safetensors(path):
    """-> (dict name -> np.ndarray, metadata dict). BF16 is widened to float32."""
    with open(path, 'rb') as f:
        raw = f.read()
    (n,) = struct.unpack('<Q', raw[:8])
    header = json.loads(raw[8:8 + n].decode('utf-8'))
    meta = header.pop('__metadata__', {}) or {}
    base = 8 + n
    out = {}
    for name, info in header.items():
        a, b = info['data_offsets']
        buf = raw[base + a:base + b]
        if info['dtype'] == 'BF16':
            u = np.frombuffer(buf, dtype=np.uint16).astype(np.uint32) << 16
            arr = u.view(np.float32)
        else:
            arr = np.frombuffer(buf, dtype=_DT[info['dtype']])
        out[name] = arr.reshape(info['shape']).copy()
    return out, meta


def write_safetensors(path, tensors, metadata=None):
    """tensors: dict name -> np.ndarray (float16 / float32 / ...), written in the given order."""
    inv = {np.dtype(v): k for k, v in _DT.items()}
    header = {}
    if metadata:
        header['__metadata__'] = {str(k): str(v) for k, v in metadata.items()}
    off = 0
    blobs = []
    for name, arr in tensors.items():
        arr = np.ascontiguousarray(arr)
        b = arr.tobytes()
        header[name] = {'dtype': inv[arr.dtype], 'shape': list(arr.shape), 'data_offsets': [off, off + len(b)]}
        off += len(b)
        blobs.append(b)
    h = json.dumps(header, separators=(',', ':')).encode('utf-8')
    h += b' ' * ((8 - len(h) % 8) % 8)
    with open(path, 'wb') as f:
        f.write(struct.pack('<Q', len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)
