# Sourced by a device call's script (bench/results/<session>-data/*.sh), from the repository root on the GPU machine:
#   . bench/device_call.sh NAME COMMIT
# sets what every such call starts with: C=COMMIT; K=/tmp/NAME, the call's state, kept between calls on one warm
# machine; an EXIT trap that sends K back in OUT (OUT/NAME-HHMMSS.tgz without the caches, and K's *.md);
# /tmp/bin, the binaries of .device/bins.tar.xz (scripts/pack_for_device.sh), unpacked once per COMMIT; the GPU's
# name (name; G: h200, h100 or gpu, for file names), appended to K/gpu.txt; UNTIL (default 560 s) and left(), the
# seconds left before it.
set -u
C=${2:?COMMIT (the commit the binaries of .device/bins.tar.xz were packed at)}
K=/tmp/${1:?NAME}
mkdir -p "$K"
stamp=$(date +%H%M%S)
trap 'tar czf "$OUT/'"$1"'-$stamp.tgz" -C "$K" --exclude="*.db" . ; cp "$K"/*.md "$OUT"/ 2>/dev/null; echo "'"$1"': done at $SECONDS s"' EXIT
[ -f "/tmp/bin/.from-$C" ] || { rm -rf /tmp/bin &&
  python3 -c "import tarfile; tarfile.open('.device/bins.tar.xz').extractall('/tmp/bin')" && touch "/tmp/bin/.from-$C"; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee -a "$K/gpu.txt"
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case $name in *H200*) G=h200 ;; *H100*) G=h100 ;; *) G=gpu ;; esac
UNTIL=${UNTIL:-560}
left() { echo $((UNTIL - SECONDS)); }
