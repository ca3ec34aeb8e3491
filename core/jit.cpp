#include "core/jit.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string_view>
#include <utility>

#include "autotune/device.hpp"
#include "autotune/error.hpp"
#include "autotune/identity.hpp"
#include "core/integrity.hpp"
#include "core/nvrtc.hpp"
#include "core/paths.hpp"

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

// The program name NVRTC is given, whatever the caller's: it ends up in the cubin (the file name of device-side
// assertions), so a fixed one makes the cubin a function of the source, the options and the NVRTC version alone,
// which is what the compile cache is keyed by and what an import reproduces to verify a cubin. The caller's name
// replaces it in the log.
constexpr std::string_view kProgramName = "autotune_kernel.cu";

CompileResult compile(const std::string& source, const std::string& name, const std::string& arch) {
  CompileResult result;
  result.arch = arch;
  result.options = options_for(arch);

  const nvrtc::Api& api = nvrtc::require();  // throws, saying how to get NVRTC, when it cannot be loaded
  nvrtcProgram raw = nullptr;
  check(api, api.create_program(&raw, source.c_str(), std::string(kProgramName).c_str(), 0, nullptr, nullptr),
        "nvrtcCreateProgram");
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
    for (std::size_t at = 0; (at = result.log.find(kProgramName, at)) != std::string::npos; at += name.size())
      result.log.replace(at, kProgramName.size(), name);
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

std::string ptx(const std::string& source, const std::string& arch) {
  const std::string virtual_arch = arch.rfind("sm_", 0) == 0 ? "compute_" + arch.substr(3) : arch;
  const nvrtc::Api& api = nvrtc::require();
  nvrtcProgram raw = nullptr;
  check(api, api.create_program(&raw, source.c_str(), std::string(kProgramName).c_str(), 0, nullptr, nullptr),
        "nvrtcCreateProgram");
  Program program(raw, ProgramDeleter{&api});
  const std::vector<std::string> options = options_for(virtual_arch);
  std::vector<const char*> argv;
  for (const auto& o : options) argv.push_back(o.c_str());
  if (api.compile_program(program.get(), static_cast<int>(argv.size()), argv.data()) != NVRTC_SUCCESS) {
    std::size_t log_size = 0;
    check(api, api.program_log_size(program.get(), &log_size), "nvrtcGetProgramLogSize");
    std::string log(log_size, '\0');
    if (log_size > 0) check(api, api.program_log(program.get(), log.data()), "nvrtcGetProgramLog");
    throw Error(fmt::format("NVRTC did not compile the source to PTX for {}: {}", virtual_arch, log.c_str()));
  }
  std::size_t size = 0;
  check(api, api.ptx_size(program.get(), &size), "nvrtcGetPTXSize");
  std::string text(size, '\0');
  check(api, api.ptx(program.get(), text.data()), "nvrtcGetPTX");
  if (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

namespace {

// A compile-cache file is this line, then the cubin: "autotune-cubin 2 <HMAC-SHA256 hex>\n". The HMAC is keyed with
// the user's secret key file in the directory (kKeyFile: 32 random bytes as hex, mode 0600, owned by the user) and
// covers the file's name and the cubin, so a file is used only when this user's autotune wrote it under this name:
// one planted by anybody else (who cannot read the key), damaged, renamed from another source's file or written
// by an older autotune ("autotune-cubin 1", a plain SHA-256) is a miss, compiled again and replaced, never loaded.
constexpr std::string_view kFileMagic = "autotune-cubin 2 ";
constexpr const char* kKeyFile = "hmac-key";

// The directory's key, or nullopt when there is none yet or it cannot be trusted (another owner, readable by
// others, not a regular file): then the directory is not used at all.
std::optional<std::string> read_key(const std::filesystem::path& dir) {
  const std::string path = (dir / kKeyFile).string();
  if (!integrity::private_file_problem(path).empty()) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  std::string text(64, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.gcount() != 64 || !integrity::from_hex(text)) return std::nullopt;
  return text;
}

// The key, created (atomically, 0600) when the directory has none; nullopt when it cannot be made or trusted.
std::optional<std::string> key_for_writing(const std::filesystem::path& dir) {
  if (auto key = read_key(dir)) return key;
  const std::string path = (dir / kKeyFile).string();
  std::error_code ec;
  if (std::filesystem::exists(std::filesystem::symlink_status(path, ec))) return std::nullopt;  // not ours to replace
  try {
    const auto random = integrity::random_bytes(32);
    integrity::create_private_file(path, integrity::to_hex(random.data(), random.size()));
  } catch (const Error&) {
    return std::nullopt;  // best effort, as the cache itself: a compile next time
  }
  return read_key(dir);  // ours, or the one another process created first
}

std::string mac_of(const std::string& key, const std::filesystem::path& file, const char* image, std::size_t size) {
  std::string message = file.filename().string();
  message += '\0';
  message.append(image, size);
  return integrity::hmac_sha256_hex(key, message.data(), message.size());
}

std::optional<std::vector<char>> read_verified(const std::filesystem::path& file, const std::string& key) {
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
  if (!integrity::is_elf(image, size) || mac_of(key, file, image, size) != stated) return std::nullopt;
  return std::vector<char>(image, image + size);
}

void write_entry(const std::filesystem::path& file, const std::string& key, const std::vector<char>& cubin) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path tmp = file.string() + ".tmp" + std::to_string(std::random_device{}());
  {
    std::ofstream out(tmp, std::ios::binary);
    const std::string header = std::string(kFileMagic) + mac_of(key, file, cubin.data(), cubin.size()) + "\n";
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(cubin.data(), static_cast<std::streamsize>(cubin.size()));
    if (!out) {
      out.close();
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, file, ec);  // replaces a damaged or planted file of the same name
  if (ec) fs::remove(tmp, ec);
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
  if (const auto key = read_key(dir))
    if (auto image = read_verified(file, *key)) {
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
  if (const auto key = key_for_writing(dir)) write_entry(file, *key, r.cubin);
  return r;
}

bool reproduces(const std::string& source, const std::string& arch, const std::vector<char>& cubin) {
  // One compile per distinct source and architecture in a process: an import of many runs of one configuration
  // (or a fuzzer importing the same document over and over) compiles it once.
  static std::mutex mutex;
  static std::map<std::pair<std::string, std::string>, std::optional<std::vector<char>>> compiled;
  const auto key = std::pair{integrity::sha256_hex(source), arch};
  std::optional<std::vector<char>> bytes;
  {
    std::lock_guard lock(mutex);
    if (const auto it = compiled.find(key); it != compiled.end()) return it->second && *it->second == cubin;
  }
  try {
    CompileResult r = compile(source, "verify.cu", arch);
    if (r.ok) bytes = std::move(r.cubin);
  } catch (const Error&) {
    // No NVRTC here: nothing can be verified, and the cubin is dropped.
  }
  std::lock_guard lock(mutex);
  const auto& entry = compiled.emplace(key, std::move(bytes)).first->second;
  return entry && *entry == cubin;
}

std::string default_compile_cache_dir() {
  if (const char* env = std::getenv("AUTOTUNE_CUBIN_CACHE")) return env;
  try {
    return (std::filesystem::path(default_cache_file()).parent_path() / "cubins").string();
  } catch (const Error&) {
    return {};
  }
}

}  // namespace autotune::jit
