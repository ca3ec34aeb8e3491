#include "runtime/jit.hpp"

#include <fmt/format.h>
#include <nvrtc.h>

#include <memory>

#include "autotune/error.hpp"

namespace autotune::jit {

namespace {

struct ProgramDeleter {
  void operator()(nvrtcProgram p) const noexcept { nvrtcDestroyProgram(&p); }
};
using Program = std::unique_ptr<std::remove_pointer_t<nvrtcProgram>, ProgramDeleter>;

void check(nvrtcResult r, const char* what) {
  if (r != NVRTC_SUCCESS) throw Error(fmt::format("NVRTC: {} failed: {}", what, nvrtcGetErrorString(r)));
}

}  // namespace

std::vector<std::string> options_for(const std::string& arch) {
  // -std=c++17: the templates use `if constexpr`. No fast-math: float binning must match the CPU reference bit for bit.
  return {"--gpu-architecture=" + arch, "-std=c++17"};
}

CompileResult compile(const std::string& source, const std::string& name, const std::string& arch) {
  CompileResult result;
  result.arch = arch;
  result.options = options_for(arch);

  nvrtcProgram raw = nullptr;
  check(nvrtcCreateProgram(&raw, source.c_str(), name.c_str(), 0, nullptr, nullptr), "nvrtcCreateProgram");
  Program program(raw);

  std::vector<const char*> argv;
  for (const auto& o : result.options) argv.push_back(o.c_str());
  const nvrtcResult compiled = nvrtcCompileProgram(program.get(), static_cast<int>(argv.size()), argv.data());

  std::size_t log_size = 0;
  check(nvrtcGetProgramLogSize(program.get(), &log_size), "nvrtcGetProgramLogSize");
  if (log_size > 1) {
    result.log.resize(log_size);
    check(nvrtcGetProgramLog(program.get(), result.log.data()), "nvrtcGetProgramLog");
    result.log.resize(log_size - 1);  // drop the terminating NUL
  }
  if (compiled == NVRTC_ERROR_COMPILATION) return result;  // ok == false, the log says why
  if (compiled == NVRTC_ERROR_INVALID_OPTION)  // e.g. an architecture this NVRTC does not know
    return result.log.empty() ? (result.log = fmt::format("NVRTC rejected the options for {}", arch), result) : result;
  check(compiled, "nvrtcCompileProgram");

  std::size_t size = 0;
  check(nvrtcGetCUBINSize(program.get(), &size), "nvrtcGetCUBINSize");
  result.cubin.resize(size);
  check(nvrtcGetCUBIN(program.get(), result.cubin.data()), "nvrtcGetCUBIN");
  result.ok = size > 0;
  if (!result.ok) result.log += "\nNVRTC produced an empty cubin";
  return result;
}

}  // namespace autotune::jit
