import numpy as np, itertools, sys
# the probe's inputs: LCG seed 777, a = f32(1.7 * (seed/2^31 - 1)), rounded to f16
seed = 777
def inputs(n):
    global seed
    a = np.empty(n, np.float32)
    for i in range(n):
        seed = (seed * 1664525 + 1013904223) & 0xffffffff
        a[i] = np.float32(1.7 * (seed / 2**31 - 1))
    return a.astype(np.float16).astype(np.float64)

def reference(qkv, C, N, scale):
    q = qkv[:C*N].reshape(C, N); k = qkv[C*N:2*C*N].reshape(C, N); v = qkv[2*C*N:].reshape(C, N)
    s = (q.T @ k) * scale  # [query][key]
    s -= s.max(1, keepdims=True); p = np.exp(s); p /= p.sum(1, keepdims=True)
    return (v @ p.T)  # o[c, n]

T = lambda x: x.T
def kernel(qkv, C, N, scale, ct, kb, two_pass=False, f=()):
    """f: set of fault names"""
    q = qkv[:C*N].reshape(C, N); k = qkv[C*N:2*C*N].reshape(C, N); v = qkv[2*C*N:].reshape(C, N)
    out = np.zeros((C, N))
    B = 16 * kb
    for q0 in range(0, N, 16):
        for c0 in range(0, C, 16 * ct):
            def scores(k0):
                S = []
                for j in range(kb):
                    if k0 + 16*j >= N: S.append(np.zeros((16,16))); continue
                    acc = np.zeros((16, 16))
                    for d in range(0, C, 16):
                        A = q[d:d+16, q0:q0+16].T   # (m, d)
                        Bm = k[d:d+16, k0+16*j:k0+16*j+16]  # (d, j)
                        if 'tQ' in f: A = A.T
                        if 'tK' in f: Bm = Bm.T
                        acc = acc + A @ Bm
                    if 'tS' in f: acc = acc.T
                    S.append(acc)
                return np.concatenate(S, 1)  # 16 x B
            m = np.full(16, -3e38); l = np.zeros(16); O = np.zeros((16, 16*ct))
            if two_pass:
                for k0 in range(0, N, B):
                    S = scores(k0); nk = min(B, N-k0)
                    mb = (S[:, :nk]*scale).max(1); mn = np.maximum(m, mb)
                    l = l*np.exp(m-mn) + np.exp(S[:, :nk]*scale - mn[:, None]).sum(1); m = mn
            for k0 in range(0, N, B):
                S = scores(k0); nk = min(B, N-k0)
                if two_pass:
                    mnew = m
                else:
                    mb = (S[:, :nk]*scale).max(1)
                    grow = mb > m + 8
                    mnew = np.where(grow, mb, m)
                P = np.exp(S*scale - mnew[:, None]); P[:, nk:] = 0
                if not two_pass:
                    alpha = np.where(grow, np.exp(m - mnew), 1.0)
                    l = l*alpha + P.sum(1); m = mnew
                    if (grow & (m > -3e38)).any() and 'norescale' not in f: O = O * alpha[:, None]
                P = P.astype(np.float16).astype(np.float64)
                for j in range(kb):
                    if k0 + 16*j >= N: continue
                    Pt = P[:, 16*j:16*j+16]
                    if 'tP' in f: Pt = Pt.T
                    for t in range(ct):
                        Vt = v[c0+16*t:c0+16*t+16, k0+16*j:k0+16*j+16].T  # (k, c)
                        if 'tV' in f: Vt = Vt.T
                        O[:, 16*t:16*t+16] += Pt @ Vt
            for t in range(ct):
                Ot = O[:, 16*t:16*t+16]
                if 'tO' in f: Ot = Ot.T
                out[c0+16*t:c0+16*t+16, q0:q0+16] = (Ot / l[:, None] if 'tO' not in f else Ot / l[None, :]).T
    return out.astype(np.float16).astype(np.float64)

def nmse(got, ref): return ((got-ref)**2).sum() / (ref**2).sum()
cases = [(32, 96), (64, 48)]
data = {}
for C, N in cases:
    data[(C, N)] = inputs(3*C*N)
h200 = {(32,96): {'1p-2x2': 1.1775364531234396, '2p-1x3': 1.1699064083496928, 's32': 1.1305572960554382},
        (64,48): {'1p-2x2': 0.9829144280795389, '2p-1x3': 0.9866944184681194, 's32': 0.9745594315025197}}
if __name__ == '__main__':
    faults = ['tQ', 'tK', 'tS', 'tP', 'tV', 'tO']
    for C, N in cases:
        qkv = data[(C, N)]; sc = 1/np.sqrt(C)
        ref = reference(qkv, C, N, sc)
        print(C, N, 'h200', h200[(C,N)])
        for r in range(0, 3):
            for fs in itertools.combinations(faults, r):
                a = nmse(kernel(qkv, C, N, sc, 2, 2, False, set(fs)), ref)
                b = nmse(kernel(qkv, C, N, sc, 1, 3, True, set(fs)), ref)
                print(f'  {"+".join(fs) or "none":12s} 1p-2x2 {a:.6f}  2p-1x3 {b:.6f}')
