cd /tmp/wino/dry
for rep in 1; do
for conv in direct winograd winograd4; do
  t0=$(date +%s.%N)
  timeout 600 node bin/wan-vae.mjs decode --synthetic 2.1 --latent-size 2x8x12 --tile none --precision f32 --conv $conv --json --out /tmp/wino/lp/$conv.npy > /tmp/wino/lp/$conv-$rep.log 2>&1
  echo "{\"conv\":\"$conv\",\"rep\":$rep,\"rc\":$?,\"wall\":$(echo "$(date +%s.%N) - $t0" | bc),\"result\":$(tail -1 /tmp/wino/lp/$conv-$rep.log | grep '^{' || echo null)}" >> /tmp/wino/lp/decode.jsonl
done
done
node scripts/compare-npy.mjs /tmp/wino/lp/direct.npy /tmp/wino/lp/winograd.npy >> /tmp/wino/lp/compare.txt
node scripts/compare-npy.mjs /tmp/wino/lp/direct.npy /tmp/wino/lp/winograd4.npy >> /tmp/wino/lp/compare.txt
