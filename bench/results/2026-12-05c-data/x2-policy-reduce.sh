set -u
[ -x /tmp/bin/autotune ] || python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('/tmp/bin')"
SECONDS=0
for N in 4096 16384 65536 1048576 16777216 268435456; do
  ADD_SHAPES='reduce/sum/i8/acc=i64 reduce/max/i8/acc=i8 reduce/min/i8/acc=i8 reduce/sum/i16/acc=i64 reduce/max/i16/acc=i16 reduce/min/i16/acc=i16 reduce/absmax/i32/acc=u32 reduce/absmax/i64/acc=u64' SHAPES='i8|i16|absmax/i(32|64)' bench/policy_retune.sh /tmp/bin $OUT/red reduce $N > $OUT/red-$N.out 2>&1
  echo "reduce $N done at $SECONDS s"
done
grep -h "variants in" $OUT/red/*.log | cut -c1-160
cd $OUT && tar czf x2.tgz red/*.log *.out && rm -rf red && ls -la
