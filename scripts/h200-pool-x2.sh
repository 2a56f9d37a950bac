#!/usr/bin/env bash
# Issue 14's two-GPU row: 8 queued Wan2.1 480x832x81 f16 decodes through DecoderPool on one H200, then on two
# (kind nvidia-h200-x2, lent only at times: ask `status` for it first; ~250 s of device time with the cold start).
# Identical GPUs share one adapter name and Dawn's `adapter=` flag takes the first match, so the pool selects
# members by PCI bus through Mesa's device-select Vulkan layer (src/node/pool.ts); the device machine has no
# such layer, so it is carried from this machine's mesa-vulkan-drivers with the libraries it needs.
#
#   here:   bash scripts/h200-pool-x2.sh prepare     # -> .h200-lead/{pool-throughput.js,vk/} (ignored folder)
#   device: two `run` calls as in scripts/h200-run.sh's header (call 1 carries .gpu-bundle/np/node.xz.aa), call 2
#           kind nvidia-h200-x2, carrying .gpu-bundle/{np/node.xz.ab,boot.sh,dawn.node.xz,debs,webgpu} and .h200-lead:
#           cat .gpu-bundle/np/node.xz.aa .gpu-bundle/np/node.xz.ab > .gpu-bundle/node.xz && source .gpu-bundle/boot.sh && bash scripts/h200-pool-x2.sh run
# Results under $OUT: gpus.txt (nvidia-smi, the layer's device list), pool.jsonl (one line per MEMBERS), smi.csv
# and smi-peaks.txt (memory per GPU every 500 ms: both GPUs must show a decoder's weights + plan, once each).
set -u
D=.h200-lead
if [ "${1:-}" = prepare ]; then
  mkdir -p $D/vk/lib && rm -rf /tmp/poolb && mkdir /tmp/poolb && git archive HEAD | tar -x -C /tmp/poolb
  ln -s "$PWD/node_modules" /tmp/poolb/node_modules
  (cd /tmp/poolb && npx vite build --config bench/levers/vite.pool.config.ts >/dev/null) && cp /tmp/poolb/.h200-levers/pool-throughput.js $D/
  cp /usr/lib/x86_64-linux-gnu/libVkLayer_MESA_device_select.so /usr/share/vulkan/implicit_layer.d/VkLayer_MESA_device_select.json $D/vk/
  # the layer's libraries that a bare NVIDIA image may lack
  for l in $(ldd $D/vk/libVkLayer_MESA_device_select.so | awk '/=> \//{print $3}' | grep -v -E 'libc\.so|libm\.so|libpthread|libdl\.so|libgcc|libstdc|ld-linux'); do cp -L "$l" $D/vk/lib/; done
  ls -la $D $D/vk/lib; exit 0
fi
L=$PWD/$D/vk
mkdir -p /usr/share/vulkan/implicit_layer.d /tmp/vkdeps
sed "s#\"libVkLayer_MESA_device_select.so\"#\"$L/libVkLayer_MESA_device_select.so\"#" $L/VkLayer_MESA_device_select.json > /usr/share/vulkan/implicit_layer.d/VkLayer_MESA_device_select.json
for l in $L/lib/*; do n=$(basename $l); ldconfig -p | grep -q " $n " || cp $l /tmp/vkdeps/; done
export LD_LIBRARY_PATH=/tmp/vkdeps${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
echo "carried libraries used: $(ls /tmp/vkdeps | tr '\n' ' ')"; ldd $L/libVkLayer_MESA_device_select.so | grep "not found"
nvidia-smi -L | tee $OUT/gpus.txt; nvidia-smi --query-gpu=index,pci.bus_id --format=csv,noheader | tee -a $OUT/gpus.txt
MESA_VK_DEVICE_SELECT=list timeout 30 node -e "import('webgpu').then(async ({create})=>{const a=await create([]).requestAdapter(); console.log('adapter', a && a.info.device)})" 2>&1 | head -20 | tee -a $OUT/gpus.txt
nvidia-smi --query-gpu=timestamp,index,memory.used,utilization.gpu --format=csv,noheader -lms 500 > $OUT/smi.csv 2>&1 &
SMI=$!
for m in 1 2; do echo "== MEMBERS=$m"; MEMBERS=$m ITEMS=8 timeout 200 node $D/pool-throughput.js "$OUT/pool.jsonl" 2>&1 | grep -v Warning | cut -c1-600; done
kill $SMI
awk -F', ' '{ if ($3+0 > m[$2]) m[$2]=$3+0 } END { for (g in m) print "gpu " g " peak memory.used " m[g] " MiB" }' $OUT/smi.csv | tee $OUT/smi-peaks.txt
