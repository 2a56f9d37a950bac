#!/usr/bin/env bash
# Two GPUs (kind nvidia-h200-x2): 8 queued Wan2.1 480x832x81 f16 decodes through DecoderPool on one H200, then on two.
# Needs `bench/h200/build.sh <commit> --pool` (.h200/pool: pool-throughput.js and Mesa's device-select
# Vulkan layer). Identical GPUs share one adapter name and Dawn's `adapter=` flag takes the first match, so
# the pool selects members by PCI bus through that layer (src/node/pool.ts); the device machine has none, so
# it is carried with the libraries it needs. Results: gpus.txt (nvidia-smi, the layer's device list),
# pool.jsonl (one line per MEMBERS), smi.csv and smi-peaks.txt (memory per GPU every 500 ms).
D=.h200/pool
[ -f $D/pool-throughput.js ] || { echo "pool-x2: $D/pool-throughput.js was not carried (bench/h200/build.sh <commit> --pool)"; exit 2; }
L=$PWD/$D/vk
mkdir -p /usr/share/vulkan/implicit_layer.d /tmp/vkdeps
sed "s#\"libVkLayer_MESA_device_select.so\"#\"$L/libVkLayer_MESA_device_select.so\"#" $L/VkLayer_MESA_device_select.json > /usr/share/vulkan/implicit_layer.d/VkLayer_MESA_device_select.json
for l in $L/lib/*; do n=$(basename $l); ldconfig -p | grep -q " $n " || cp $l /tmp/vkdeps/; done
export LD_LIBRARY_PATH=/tmp/vkdeps${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
echo "carried libraries used: $(ls /tmp/vkdeps | tr '\n' ' ')"; ldd $L/libVkLayer_MESA_device_select.so | grep "not found"
nvidia-smi -L | tee "$OUT/gpus.txt"; nvidia-smi --query-gpu=index,pci.bus_id --format=csv,noheader | tee -a "$OUT/gpus.txt"
MESA_VK_DEVICE_SELECT=list timeout 30 node -e "import('webgpu').then(async ({create})=>{const a=await create([]).requestAdapter(); console.log('adapter', a && a.info.device)})" 2>&1 | head -20 | tee -a "$OUT/gpus.txt"
nvidia-smi --query-gpu=timestamp,index,memory.used,utilization.gpu --format=csv,noheader -lms 500 > "$OUT/smi.csv" 2>&1 &
SMI=$!
for m in 1 2; do echo "== MEMBERS=$m"; MEMBERS=$m ITEMS=8 timeout 200 node $D/pool-throughput.js "$OUT/pool.jsonl" 2>&1 | grep -v Warning | cut -c1-600; done
kill $SMI
awk -F', ' '{ if ($3+0 > m[$2]) m[$2]=$3+0 } END { for (g in m) print "gpu " g " peak memory.used " m[g] " MiB" }' "$OUT/smi.csv" | tee "$OUT/smi-peaks.txt"
finish
