#include "core/jit.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <random>
#include <string_view>

#include "autotune/cache.hpp"
#include "autotune/device.hpp"
#include "autotune/error.hpp"
#include "autotune/identity.hpp"
#include "core/integrity.hpp"
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

// A compile-cache file is this line, then the cubin: "autotune-cubin 1 <SHA-256 of the cubin>\n". A file is used only
// when the hash of what follows the line matches and it is an ELF image, so a file planted in (or damaged in) the
// directory under the right name is a miss: compiled again and replaced, never loaded.
constexpr std::string_view kFileMagic = "autotune-cubin 1 ";

std::optional<std::vector<char>> read_verified(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.eof() && !in.good()) return std::nullopt;
  const std::size_t header = kFileMagic.size() + 64 + 1;
  if (bytes.size() <= header || std::string_view(bytes.data(), kFileMagic.size()) != kFileMagic ||
      bytes[header - 1] != '\n')
    return std::nullopt;
  const std::string_view stated(bytes.data() + kFileMagic.size(), 64);
  const char* image = bytes.data() + header;
  const std::size_t size = bytes.size() - header;
  if (!integrity::is_elf(image, size) || integrity::sha256_hex(image, size) != stated) return std::nullopt;
  return std::vector<char>(image, image + size);
}

}  // namespace

std::string compile_cache_file(const std::string& source, const std::string& arch, const std::string& dir) {
  std::string identity = source;
  for (const auto& o : options_for(arch)) identity += '\0' + o;
  identity += '\0' + std::to_string(nvrtc_version());
  return (std::filesystem::path(dir) / (template_hash(identity) + "-" + arch + ".cubin")).string();
}

CompileResult compile_cached(const std::string& source, const std::string& name, const std::string& arch,
                             const std::string& dir) {
  if (dir.empty()) return compile(source, name, arch);
  namespace fs = std::filesystem;
  const fs::path file = compile_cache_file(source, arch, dir);
  if (auto image = read_verified(file)) {
    CompileResult r;
    r.ok = true;
    r.cubin = std::move(*image);
    r.arch = arch;
    r.options = options_for(arch);
    r.from_cache = true;
    return r;
  }
  CompileResult r = compile(source, name, arch);
  if (!r.ok) return r;
  // Best effort: a cache that cannot be written only costs a compile next time.
  std::error_code ec;
  fs::create_directories(dir, ec);
  const fs::path tmp = file.string() + ".tmp" + std::to_string(std::random_device{}());
  {
    std::ofstream out(tmp, std::ios::binary);
    const std::string header = std::string(kFileMagic) + integrity::sha256_hex(r.cubin) + "\n";
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(r.cubin.data(), static_cast<std::streamsize>(r.cubin.size()));
    if (!out) {
      out.close();
      fs::remove(tmp, ec);
      return r;
    }
  }
  fs::rename(tmp, file, ec);  // replaces a damaged or planted file of the same name
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
