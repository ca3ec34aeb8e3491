#!/usr/bin/env bash
# The house's rules (README "Layout"), checked on the source tree. Argument: the source directory.
#  1. Layers include only the layers below them: core/ <- cache/ <- runtime/ <- tuner/ <- cli/; no generic layer
#     includes a family's folder (kernel_templates/NAME/) or bench/ (cli/bench.cpp takes CUB's calls from
#     bench/baselines.hpp, which looks them up by problem). core/ does not use the cache, not even through its public
#     header. A family uses core/ and runtime/ only, and no other family's folder (the registry names them all).
#  2. No code outside a family's folder and the registry names a family: no family type, and no family name as a
#     string, in core/, cache/, runtime/, tuner/, cli/ or the family-independent public headers. The families are the
#     folders of kernel_templates/, and their types are read from their public headers
#     (include/autotune/*_problem.hpp), so a new family is checked without editing this script.
set -uo pipefail
src="$1"
cd "$src" || exit 2
fail=0

forbid_includes() {
  local dir="$1"; shift
  local pattern
  pattern=$(printf '|%s/' "$@")
  pattern="#include \"(${pattern:1})"
  if grep -rnE "$pattern" "$dir" --include='*.cpp' --include='*.hpp'; then
    echo "layout: $dir/ includes a layer above it or a family (see above)" >&2
    fail=1
  fi
}
forbid_includes core cache runtime tuner cli kernel_templates bench
forbid_includes cache runtime tuner cli kernel_templates bench
forbid_includes runtime tuner cli kernel_templates bench
forbid_includes tuner cli kernel_templates bench
if grep -rnE '#include "(kernel_templates/|bench/)' cli --include='*.cpp' --include='*.hpp' | grep -v 'bench/baselines.hpp'; then
  echo "layout: cli/ includes a family or a benchmark (see above)" >&2
  fail=1
fi
if grep -rnE '#include "autotune/(cache|tuner)\.hpp"' core --include='*.cpp' --include='*.hpp'; then
  echo "layout: core/ uses the cache or the tuner through their public headers (see above)" >&2
  fail=1
fi

families=()
for d in kernel_templates/*/; do families+=("$(basename "$d")"); done
[ ${#families[@]} -ge 5 ] || { echo "layout: found ${#families[@]} family folders under kernel_templates/" >&2; exit 2; }
# What families share lives in kernel_templates/ itself (histogram_samples.*, reduction_reference.*, half_host.*):
# no family includes another, without exception.
for f in "${families[@]}"; do
  others=()
  for g in "${families[@]}"; do [ "$g" = "$f" ] || others+=("kernel_templates/$g/"); done
  pattern=$(printf '|%s' "${others[@]}" cache/ tuner/ cli/ bench/)
  if grep -rnE "#include \"(${pattern:1})" "kernel_templates/$f" --include='*.cpp' --include='*.hpp' --include='*.cuh'; then
    echo "layout: the family $f includes another family or a layer above runtime/ (see above)" >&2
    fail=1
  fi
done
# ... and what they share includes no family (nor a layer above runtime/); the registry, which lists them, aside.
shared_pattern=$(printf '|kernel_templates/%s/' "${families[@]}")
if grep -nE "#include \"(${shared_pattern:1}|cache/|tuner/|cli/|bench/)" kernel_templates/*.cpp kernel_templates/*.hpp \
     kernel_templates/*.cuh 2>/dev/null | grep -v '^kernel_templates/registry\.cpp:'; then
  echo "layout: a file that families share (kernel_templates/*.*) includes a family or a layer above runtime/" >&2
  fail=1
fi

generic=(core cache runtime tuner cli include/autotune/problem.hpp include/autotune/cache.hpp
         include/autotune/tuner.hpp include/autotune/resolution.hpp include/autotune/device.hpp
         include/autotune/error.hpp include/autotune/identity.hpp)
# The families' names and the types of their public headers.
types=$(grep -hoE '^(struct|enum class|class) [A-Z][A-Za-z0-9]+' include/autotune/*_problem.hpp | awk '{ print $NF }' |
        sort -u | paste -sd'|')
[ -n "$types" ] || { echo "layout: no family type found in include/autotune/*_problem.hpp" >&2; exit 2; }
names="(^|[^A-Za-z0-9_])($types)([^A-Za-z0-9_]|\$)"
for f in "${families[@]}"; do names+="|\"$f\"|(^|[^A-Za-z0-9_])${f}_[a-z]"; done
names+='|(^|[^A-Za-z0-9_])reduce_[a-z]'
# Code only: a line whose text before any // comment names a family.
if grep -rnE "$names" "${generic[@]}" --include='*.cpp' --include='*.hpp' | grep -vE '^[^:]+:[0-9]+:\s*//' |
   awk -v names="$names" '{ line = $0; sub(/^[^:]+:[0-9]+:/, "", line); code = line; sub(/\/\/.*/, "", code);
              if (code ~ names) print }' | grep .; then
  echo "layout: family-independent code names a family (see above)" >&2
  fail=1
fi
exit $fail
