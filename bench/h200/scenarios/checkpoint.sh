#!/usr/bin/env bash
# Real checkpoints (issue 23): random Wan2.2 weights saved in f32 by torch.save (.pth, encoder + decoder) and as safetensors, decoded full size through the CLI against the official fp32 decode; load time and peak RSS.
# bench/h200/checkpoint-make.py makes the weights as ../shared/gpu/fullsize-check.py does (its randomize),
# keeps them f32, writes full.pth (torch.save of the whole state dict, ~2.8 GB) and decoder.safetensors
# (~2.2 GB), the latents and the official fp32 decode (TF32 off). Then one CLI decode from each file
# (default options: f32, --conv auto) under a wrapper that records the peak RSS of the process, and
# fullsize-check.py's comparison against the official decode (max |err| <= 1e-4 expected in f32).
# Carried (ignored, docs/gpu-runs.md): .h200/checkpoint/fullsize-check.py (a copy of ../shared/gpu/fullsize-check.py)
# .h200/checkpoint/wan-ref/{vae21,vae22}.py (the official modules) and .h200/checkpoint/whl/einops-*.whl
# (as the speed scenario carries them: cp -r .h200/speed/{wan-ref,whl} .h200/checkpoint/). Results: $OUT/checkpoint.jsonl
# (make, decode lines with rss_peak_bytes and the CLI's weightLoad, cmp lines).
# Dry run here (2026-12-01, 2-core Debian machine, lavapipe, torch 1.13 which lacks the official modules' SDPA, so no
# reference): PY=/usr/bin/python3 V=2.1 LAT=1x2x2 SKIPBOOT=1 OUT=/tmp/ck bash bench/h200/run.sh checkpoint: full.pth
# 507,633,841 bytes (the official Wan2.1_VAE.pth is 507,609,880), both decodes rc 0, peak window 16.0 MB.
# H200, 2026-12-02, build of 1e586aa: V=2.2 LAT=5x44x80 STOP_AFTER=110 (17 frames at 704x1280, to fit the run's device
# time): the whole scenario 74 s (make 51 s, each decode 8-10 s), .pth and safetensors max |err| 2.68e-5, peak RSS
# 721 / 683 MB (bench/results/h200/checkpoint-2026-12-02-1e586aa/). The full 121 frames add about 2 x 30 s of decode
# and the official decode's longer run.
V=${V:-2.2} LAT=${LAT:-31x44x80} PY=${PY:-python3}
CK=${CK:-.h200/checkpoint} DIR=${CKDIR:-/tmp/ck-files}
IFS=x read -r LT LH LW <<< "$LAT"
rm -rf "$DIR"; mkdir -p "$DIR"
# einops (the official modules import it) from the carried wheel where python has none
$PY -c 'import einops' 2>/dev/null || { $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site $CK/whl/*.whl > "$OUT/logs/pip.log" 2>&1 || unzip -q -o $CK/whl/*.whl -d /tmp/site; export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}; }
t0=$SECONDS
FULLSIZE_CHECK=$CK/fullsize-check.py WAN_REF_DIR=$CK/wan-ref timeout 300 $PY bench/h200/checkpoint-make.py "$V" "$LT" "$LH" "$LW" "$DIR" >> "$OUT/checkpoint.jsonl" 2> "$OUT/logs/make.err"
echo "== make rc $? $((SECONDS - t0)) s: $(tail -1 "$OUT/checkpoint.jsonl" | cut -c1-300)"
ls -la "$DIR" > "$OUT/files.txt"
# peak RSS of a command (ru_maxrss of the child, KiB -> bytes), its stdout's last JSON line kept
rss() {
  $PY -c 'import resource, subprocess, sys, json, time
t = time.time(); r = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
last = ([l for l in r.stdout.decode(errors="replace").splitlines() if l.startswith("{")] or ["null"])[-1]
print(json.dumps(dict(rc=r.returncode, wall_s=round(time.time() - t, 2), rss_peak_bytes=resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024, err=r.stderr.decode(errors="replace")[-400:], cli=json.loads(last))))' "$@"
}
for f in full.pth decoder.safetensors; do
  late "decode-$f" && continue
  t0=$SECONDS
  echo "{\"step\":\"decode\",\"file\":\"$f\",\"run\":$(rss timeout 200 ${WAN_VAE_CLI:-node bin/wan-vae.mjs} decode --dawn-flags "$F" --json --progress off --weights "$DIR/$f" --latents "$DIR/z.npy" --latent-stats none --out "$DIR/o-$f.npy")}" >> "$OUT/checkpoint.jsonl"
  echo "== decode $f $((SECONDS - t0)) s: $(tail -1 "$OUT/checkpoint.jsonl" | grep -o '"rc": *[0-9]*\|"rss_peak_bytes": *[0-9]*\|"seconds": *[0-9.]*\|"weightLoad": *{[^}]*}' | tr '\n' ' ' | cut -c1-400)"
  timeout 120 $PY $CK/fullsize-check.py cmp "$DIR/ref.npy" "$DIR/o-$f.npy" "$f" >> "$OUT/checkpoint.jsonl" 2>> "$OUT/logs/cmp.err"
  tail -1 "$OUT/checkpoint.jsonl" | cut -c1-300
  rm -f "$DIR/o-$f.npy"
done
cp "$OUT/checkpoint.jsonl" "$OUT/logs/" 2>/dev/null
finish
