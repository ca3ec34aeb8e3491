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

/// Compiles `source` to a cubin for `arch` ("sm_80", "sm_90", ...). `name` is the file name the log speaks of; NVRTC
/// compiles under a fixed program name, so that the cubin depends on the source, options_for(arch) and the NVRTC
/// version only (what the compile cache is keyed by, and what verifies an imported cubin: reproduces()).
CompileResult compile(const std::string& source, const std::string& name, const std::string& arch);

/// The PTX NVRTC makes of `source` for the virtual architecture of `arch` ("sm_90" -> compute_90), with compile()'s
/// other options: the instruction order before ptxas, which a test reads where no disassembler is installed
/// (tests/cpu/test_registers.cpp). Throws Error with NVRTC's log when the source does not compile.
std::string ptx(const std::string& source, const std::string& arch);

/// The options compile() passes for `arch`, in order (part of the compiled-binary identity).
std::vector<std::string> options_for(const std::string& arch);

/// compile() behind an on-disk cache in `dir`: one file per cubin, named by a hash of the source, the options, the
/// architecture and the NVRTC version, so a re-tune compiles nothing and any change compiles afresh. A file holds
/// an HMAC-SHA256 of its name and cubin in a first line ("autotune-cubin 2 <hex>"), keyed with the user's secret
/// `dir`/hmac-key (32 random bytes, created 0600 atomically on first write). A file is trusted by that HMAC, never
/// by its name or a hash anyone can compute: one written by somebody else, damaged, renamed or written by an older
/// autotune is a miss, compiled again and replaced. A key file that is not the user's own regular file of mode
/// 0600 disables the directory (every call compiles, nothing is written). Files are written atomically (temporary
/// file + rename), so concurrent tuners share a directory safely. An empty `dir` disables the cache. Compile
/// errors are not cached.
CompileResult compile_cached(const std::string& source, const std::string& name, const std::string& arch,
                             const std::string& dir);

/// Whether compile() of `source` for `arch` here gives exactly `cubin` (an imported cubin is kept only then: the
/// caller checks that the recorded source, options and NVRTC version are this machine's). false without NVRTC.
/// Compiles once per distinct source and architecture in a process. Thread-safe.
bool reproduces(const std::string& source, const std::string& arch, const std::vector<char>& cubin);

/// The file compile_cached uses for `source` compiled for `arch` in `dir`.
std::string compile_cache_file(const std::string& source, const std::string& arch, const std::string& dir);

/// $AUTOTUNE_CUBIN_CACHE if set, else "cubins" beside Cache::default_path(); empty when neither can be found.
std::string default_compile_cache_dir();

}  // namespace autotune::jit
