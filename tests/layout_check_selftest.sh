#!/usr/bin/env bash
# tests/layout_check.sh can fail: on a copy of the source tree it passes, then each planted slip below (one at a time,
# the copy restored between them) must make it fail. Argument: the source directory.
set -uo pipefail
src=$(cd "${1:?source directory}" && pwd) || exit 2
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
(cd "$src" && tar --exclude='./build*' --exclude='./.git' -cf - core cache runtime tuner cli kernel_templates include \
   tests/layout_check.sh) | tar -C "$copy" -xf -
check() { (cd "$copy" && bash tests/layout_check.sh . >/dev/null 2>&1); }
check || { echo "layout_check_selftest: the unchanged tree fails the check"; exit 1; }
failed=0
plant() {  # plant FILE LINE WHAT: the check must fail with LINE appended to FILE
  local file="$copy/$1" saved
  saved=$(mktemp)
  cp "$file" "$saved"
  echo "$2" >> "$file"
  if check; then echo "layout_check_selftest: not caught: $3"; failed=1; else echo "caught: $3"; fi
  cp "$saved" "$file" && rm -f "$saved"
}
plant kernel_templates/segreduce/launcher.cpp '#include "tuner/tuner.hpp"' "a family includes tuner/"
plant kernel_templates/histogram/launcher.cpp '#include "kernel_templates/argreduce/launcher.hpp"' \
  "a family includes another family"
plant core/jit.cpp '#include "autotune/cache.hpp"' "core/ includes the cache's public header"
plant cache/cache.cpp '#include "runtime/rank.hpp"' "cache/ includes runtime/"
plant runtime/rank.cpp 'int f(SegReduceProblem p);' "generic code names a newer family's type"
plant cli/table.cpp 'const char* k = "argreduce";' "generic code names a newer family as a string"
plant tuner/tuner.cpp 'int g() { return histogram_range_space(); }' "generic code calls a family's function"
check || { echo "layout_check_selftest: the restored tree fails the check"; failed=1; }
exit $failed
