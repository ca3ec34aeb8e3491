#include "tuner/origin.hpp"

#include "autotune/device.hpp"
#include "core/integrity.hpp"
#include "core/jit.hpp"

namespace autotune {

CubinOrigin cubin_origin(const Problem& problem, const Config& config, const std::string& arch) {
  CubinOrigin o;
  o.source_sha256 = integrity::sha256_hex(kernel_source(problem, config));
  o.nvrtc_options = jit::options_for(arch);
  o.nvrtc_version = nvrtc_version();
  return o;
}

}  // namespace autotune
