#include "core/jit.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>

#include "autotune/cache.hpp"
#include "autotune/device.hpp"
#include "autotune/error.hpp"
#include "autotune/identity.hpp"
#include "core/nvrtc.hpp"

namespace autotune::jit {

namespace {

struct ProgramDeleter {
  const nvrtc::Api* api;
  void operator()(nvrtcProgram p) const noexcept { api->destroy_program(&p); }
};
using Program = std::unique_ptr<std::remove_pointer_t<nvrtcProgram>, ProgramDeleter>;

void check(const nvrtc::Api& api, nvrtcResult r, const char* what) {
  if (r != NVRTC_SUCCESS) throw Error(fmt::format("NVRTC: {} failed: {}", what, api.error_string(r)));
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

  const nvrtc::Api& api = nvrtc::require();  // throws, saying how to get NVRTC, when it cannot be loaded
  nvrtcProgram raw = nullptr;
  check(api, api.create_program(&raw, source.c_str(), name.c_str(), 0, nullptr, nullptr), "nvrtcCreateProgram");
  Program program(raw, ProgramDeleter{&api});

  std::vector<const char*> argv;
  for (const auto& o : result.options) argv.push_back(o.c_str());
  const nvrtcResult compiled = api.compile_program(program.get(), static_cast<int>(argv.size()), argv.data());

  std::size_t log_size = 0;
  check(api, api.program_log_size(program.get(), &log_size), "nvrtcGetProgramLogSize");
  if (log_size > 1) {
    result.log.resize(log_size);
    check(api, api.program_log(program.get(), result.log.data()), "nvrtcGetProgramLog");
    result.log.resize(log_size - 1);  // drop the terminating NUL
  }
  if (compiled == NVRTC_ERROR_COMPILATION) return result;  // ok == false, the log says why
  if (compiled == NVRTC_ERROR_INVALID_OPTION)  // e.g. an architecture this NVRTC does not know
    return result.log.empty() ? (result.log = fmt::format("NVRTC rejected the options for {}", arch), result) : result;
  check(api, compiled, "nvrtcCompileProgram");

  std::size_t size = 0;
  check(api, api.cubin_size(program.get(), &size), "nvrtcGetCUBINSize");
  result.cubin.resize(size);
  check(api, api.cubin(program.get(), result.cubin.data()), "nvrtcGetCUBIN");
  result.ok = size > 0;
  if (!result.ok) result.log += "\nNVRTC produced an empty cubin";
  return result;
}

namespace {

bool looks_like_cubin(const std::vector<char>& image) {
  return image.size() > 4 && std::memcmp(image.data(), "\x7f" "ELF", 4) == 0;
}

}  // namespace

CompileResult compile_cached(const std::string& source, const std::string& name, const std::string& arch,
                             const std::string& dir) {
  if (dir.empty()) return compile(source, name, arch);
  std::string identity = source;
  for (const auto& o : options_for(arch)) identity += '\0' + o;
  identity += '\0' + std::to_string(nvrtc_version());
  namespace fs = std::filesystem;
  const fs::path file = fs::path(dir) / (template_hash(identity) + "-" + arch + ".cubin");

  std::error_code ec;
  if (fs::is_regular_file(file, ec)) {
    std::ifstream in(file, std::ios::binary);
    std::vector<char> image((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.good() || in.eof()) {
      if (looks_like_cubin(image)) {
        CompileResult r;
        r.ok = true;
        r.cubin = std::move(image);
        r.arch = arch;
        r.options = options_for(arch);
        r.from_cache = true;
        return r;
      }
    }
  }
  CompileResult r = compile(source, name, arch);
  if (!r.ok) return r;
  // Best effort: a cache that cannot be written only costs a compile next time.
  fs::create_directories(dir, ec);
  const fs::path tmp = file.string() + ".tmp" + std::to_string(std::random_device{}());
  {
    std::ofstream out(tmp, std::ios::binary);
    out.write(r.cubin.data(), static_cast<std::streamsize>(r.cubin.size()));
    if (!out) {
      fs::remove(tmp, ec);
      return r;
    }
  }
  fs::rename(tmp, file, ec);
  if (ec) fs::remove(tmp, ec);
  return r;
}

std::string default_compile_cache_dir() {
  if (const char* env = std::getenv("AUTOTUNE_CUBIN_CACHE")) return env;
  try {
    return (std::filesystem::path(Cache::default_path()).parent_path() / "cubins").string();
  } catch (const Error&) {
    return {};
  }
}

}  // namespace autotune::jit
