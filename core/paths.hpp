// Where autotune keeps its files by default, for the layers that need it: the cache file (Cache::default_path) and,
// beside it, the compile cache (core/jit.hpp). Internal to the library.
#pragma once

#include <string>

namespace autotune {

/// $AUTOTUNE_CACHE, else $XDG_CACHE_HOME/autotune/autotune.db, else $HOME/.cache/autotune/autotune.db. Throws
/// CacheError when none of the three is set.
std::string default_cache_file();

}  // namespace autotune
