// NVRTC as one typed stage: CUDA source in, cubin or compile log out, as a value.
//
// A compile error is an expected outcome of tuning (a variant may exceed what the compiler accepts), so compile()
// returns it as data instead of throwing; only a broken NVRTC installation throws.
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
};

/// Compiles `source` (program name `name`, used in diagnostics) to a cubin for `arch` ("sm_80", "sm_90", ...).
CompileResult compile(const std::string& source, const std::string& name, const std::string& arch);

/// The options compile() passes for `arch`, in order (part of the compiled-binary identity).
std::vector<std::string> options_for(const std::string& arch);

}  // namespace autotune::jit
