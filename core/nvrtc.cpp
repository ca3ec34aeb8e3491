#include "core/nvrtc.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>

#include "autotune/error.hpp"

namespace autotune::nvrtc {

namespace {

struct Loaded {
  Api api;
  bool ok = false;
  std::string tried;  // "name (the loader's reason); ..." when nothing loaded
};

template <class F>
bool resolve(void* handle, const char* symbol, F& out) {
  out = reinterpret_cast<F>(dlsym(handle, symbol));
  return out != nullptr;
}

// A library that loads but lacks an entry point (not NVRTC, or too old) counts as not found: the next one is tried.
bool resolve_all(void* h, Api& a) {
  return resolve(h, "nvrtcVersion", a.version) && resolve(h, "nvrtcGetErrorString", a.error_string) &&
         resolve(h, "nvrtcCreateProgram", a.create_program) && resolve(h, "nvrtcDestroyProgram", a.destroy_program) &&
         resolve(h, "nvrtcCompileProgram", a.compile_program) &&
         resolve(h, "nvrtcGetProgramLogSize", a.program_log_size) &&
         resolve(h, "nvrtcGetProgramLog", a.program_log) && resolve(h, "nvrtcGetCUBINSize", a.cubin_size) &&
         resolve(h, "nvrtcGetCUBIN", a.cubin) && resolve(h, "nvrtcGetPTXSize", a.ptx_size) &&
         resolve(h, "nvrtcGetPTX", a.ptx);
}

Loaded load() {
  Loaded l;
  for (const std::string& name : candidates()) {
    void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* why = dlerror();
      l.tried += fmt::format("{}{} ({})", l.tried.empty() ? "" : "; ", name, why ? why : "not found");
      continue;
    }
    if (resolve_all(h, l.api)) {
      l.api.library = name;
      l.ok = true;
      return l;
    }
    l.tried += fmt::format("{}{} (lacks an NVRTC entry point)", l.tried.empty() ? "" : "; ", name);
    dlclose(h);
    l.api = Api{};
  }
  return l;
}

const Loaded& loaded() {
  static const Loaded l = load();
  return l;
}

}  // namespace

std::vector<std::string> candidates() {
  if (const char* env = std::getenv("AUTOTUNE_NVRTC_LIBRARY"); env && *env) return {env};
  std::vector<std::string> names{"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
#ifdef AUTOTUNE_NVRTC_BUILD_LIBRARY
  names.emplace_back(AUTOTUNE_NVRTC_BUILD_LIBRARY);
#endif
  return names;
}

const Api* find() noexcept {
  try {
    const Loaded& l = loaded();
    return l.ok ? &l.api : nullptr;
  } catch (...) {  // only an allocation failure while loading; report NVRTC as absent
    return nullptr;
  }
}

const Api& require() {
  const Loaded& l = loaded();
  if (l.ok) return l.api;
  throw Error(fmt::format(
      "NVRTC is needed to compile a kernel but could not be loaded (tried: {}). A winner whose cubin is in the cache "
      "for this GPU's architecture needs no NVRTC; to compile, install the CUDA toolkit's NVRTC (libnvrtc.so.13, "
      "or the nvidia-cuda-nvrtc wheel) or put the directory holding libnvrtc.so on LD_LIBRARY_PATH{}",
      l.tried,
      std::getenv("AUTOTUNE_NVRTC_LIBRARY") ? " (AUTOTUNE_NVRTC_LIBRARY is set and replaces the search)" : ""));
}

}  // namespace autotune::nvrtc
