set -u
[ -x /tmp/bin/autotune ] || python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('/tmp/bin')"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
for N in 65536 1048576 16777216; do
  ADD_SHAPES='histogram/bf16/bins=64/range=[0,1) histogram/f16/bins=2048/range=[0,1)' HIST_DISTS="uniform narrow runs" SHAPES='f16|bf16' bench/policy_retune.sh /tmp/bin $OUT/half histogram $N > $OUT/half-$N.out 2>&1
  echo "half $N done at $SECONDS s"
done
HIST_DISTS="uniform narrow runs" SHAPES='(u16/bins=65536|f32/bins=32768)/' bench/policy_retune.sh /tmp/bin $OUT/many histogram 16777216 > $OUT/many.out 2>&1
echo "many done at $SECONDS s"
grep -h "variants in" $OUT/half/*.log $OUT/many/*.log | cut -c1-160
cd $OUT && tar czf x1.tgz half/*.log many/*.log *.out && rm -rf half many && ls -la
