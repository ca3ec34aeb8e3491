// NVRTC as one typed stage: CUDA source in, cubin or compile log out, as a value.
//
// A compile error is an expected outcome of tuning (a variant may exceed what the compiler accepts), so compile()
// returns it as data instead of throwing; only an NVRTC that cannot be loaded (core/nvrtc.hpp) or is broken throws.
// Thread-safety: compile() may be called from several threads at once; each call owns its nvrtcProgram.
#pragma once

#include <string>
#include <vector>

namespace autotune::jit {

struct CompileResult {
  bool ok = false;
  std::vector<char> cubin;           ///< machine code for `arch`, empty on failure
  std::string log;                   ///< NVRTC's log (warnings on success, errors on failure)
  std::string arch;                  ///< "sm_90"
  std::vector<std::string> options;  ///< the exact options passed to NVRTC
  bool from_cache = false;           ///< the cubin came from the on-disk compile cache; NVRTC did not run
};

/// Compiles `source` (program name `name`, used in diagnostics) to a cubin for `arch` ("sm_80", "sm_90", ...).
CompileResult compile(const std::string& source, const std::string& name, const std::string& arch);

/// The options compile() passes for `arch`, in order (part of the compiled-binary identity).
std::vector<std::string> options_for(const std::string& arch);

/// compile() behind an on-disk cache in `dir`: one file per cubin, named by a hash of the source, the options, the
/// architecture and the NVRTC version, so a re-tune compiles nothing and any change compiles afresh. A file holds
/// the SHA-256 of its cubin in a first line ("autotune-cubin 1 <hex>"); a file is trusted by that hash, never by
/// its name: one whose cubin does not match it (damaged, planted, or written by an older autotune) is a miss,
/// compiled again and replaced. Files are written atomically (temporary file + rename), so concurrent tuners share
/// a directory safely. An empty `dir` disables the cache. Compile errors are not cached.
CompileResult compile_cached(const std::string& source, const std::string& name, const std::string& arch,
                             const std::string& dir);

/// The file compile_cached uses for `source` compiled for `arch` in `dir`.
std::string compile_cache_file(const std::string& source, const std::string& arch, const std::string& dir);

/// $AUTOTUNE_CUBIN_CACHE if set, else "cubins" beside Cache::default_path(); empty when neither can be found.
std::string default_compile_cache_dir();

}  // namespace autotune::jit
