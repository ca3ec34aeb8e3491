// An export document is untrusted input: it may come from another machine, a mail attachment or an attacker, and
// the cubins it carries run on the importing user's GPU. This file reads it with bounds (size, nesting) and checks
// every invariant of cache/schema.sql before cache/transfer.cpp writes anything, so that a refused document
// changes nothing and an accepted one leaves only rows that autotune itself could have written. The first
// offending item is named, in one line.
//
// Nesting is limited while parsing (a parser callback that throws at depth kMaxDepth): nlohmann::json parses
// iteratively, but copying and destroying a value recurse once per level, so a value nested 50 000 deep exhausts
// the stack. A refused document is never built beyond that depth.
#include "cache/document.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <streambuf>
#include <tuple>
#include <utility>

#include "autotune/error.hpp"
#include "autotune/problem.hpp"
#include "core/family.hpp"
#include "cache/cache_impl.hpp"
#include "core/integrity.hpp"
#include "core/key_parameters.hpp"

namespace autotune::cache_detail {

// Base64 (RFC 4648, with padding) for cubins. Hand-written: it is 40 lines, nlohmann::json writes binary values as
// arrays of numbers (four times larger), and the Debian base64 libraries (libb64, cppcodec) are one more dependency
// to link statically for AUTOTUNE_PORTABLE for no gain.
namespace {
constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
}  // namespace

std::string base64_encode(const char* data, std::size_t size) {
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  for (std::size_t i = 0; i < size; i += 3) {
    const auto byte = [&](std::size_t k) { return k < size ? static_cast<unsigned char>(data[k]) : 0u; };
    const unsigned v = byte(i) << 16 | byte(i + 1) << 8 | byte(i + 2);
    out += kBase64[v >> 18 & 63];
    out += kBase64[v >> 12 & 63];
    out += i + 1 < size ? kBase64[v >> 6 & 63] : '=';
    out += i + 2 < size ? kBase64[v & 63] : '=';
  }
  return out;
}

std::optional<std::vector<char>> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::vector<char> out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const int pad = last ? (text[i + 3] == '=') + (text[i + 2] == '=') : 0;
    if (pad == 1 && text[i + 2] == '=') return std::nullopt;  // "x=y=" is not padding
    unsigned v = 0;
    for (int k = 0; k < 4 - pad; ++k) {
      const int d = value(text[i + k]);
      if (d < 0) return std::nullopt;
      v |= static_cast<unsigned>(d) << (18 - 6 * k);
    }
    out.push_back(static_cast<char>(v >> 16 & 0xff));
    if (pad < 2) out.push_back(static_cast<char>(v >> 8 & 0xff));
    if (pad < 1) out.push_back(static_cast<char>(v & 0xff));
  }
  return out;
}

namespace {

struct TooDeep {};

// Throws TooDeep when an array or object would open at nesting level max_depth + 1.
auto depth_limit(int max_depth) {
  return [max_depth](int depth, Json::parse_event_t event, Json&) {
    if ((event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start) &&
        depth >= max_depth)
      throw TooDeep{};
    return true;
  };
}

// Passes at most `limit` bytes of another stream buffer through, and notes whether there was more.
class BoundedBuffer : public std::streambuf {
 public:
  BoundedBuffer(std::streambuf* source, std::uint64_t limit) : source_(source), left_(limit) {}
  bool exceeded() const { return exceeded_; }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (left_ == 0) {
      exceeded_ = !traits_type::eq_int_type(source_->sgetc(), traits_type::eof());
      return traits_type::eof();
    }
    const auto n = source_->sgetn(buffer_, static_cast<std::streamsize>(std::min<std::uint64_t>(sizeof buffer_, left_)));
    if (n <= 0) return traits_type::eof();
    left_ -= static_cast<std::uint64_t>(n);
    setg(buffer_, buffer_, buffer_ + n);
    return traits_type::to_int_type(*gptr());
  }

 private:
  std::streambuf* source_;
  std::uint64_t left_;
  bool exceeded_ = false;
  char buffer_[1 << 16];
};

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::optional<Json> parse_bounded(std::string_view text, int max_depth) {
  try {
    Json j = Json::parse(text.begin(), text.end(), depth_limit(max_depth), false);
    if (j.is_discarded()) return std::nullopt;
    return j;
  } catch (const TooDeep&) {
    return std::nullopt;
  }
}

Json read_document(std::istream& in, const std::string& source, std::uint64_t max_bytes) {
  if (!in.rdbuf()) throw CacheError(fmt::format("cannot import {}: nothing to read", source));
  BoundedBuffer bounded(in.rdbuf(), max_bytes);
  std::istream limited(&bounded);
  try {
    Json doc = Json::parse(limited, depth_limit(kMaxDepth));
    return doc;
  } catch (const TooDeep&) {
    throw CacheError(fmt::format("cannot import {}: the document is nested more than {} levels deep", source,
                                 kMaxDepth));
  } catch (const Json::exception& e) {
    if (bounded.exceeded())
      throw CacheError(fmt::format("cannot import {}: the document is larger than the limit of {} bytes", source,
                                   max_bytes));
    // In our words, with where it went wrong: the library's own text ("[json.exception.parse_error.101] ...") means
    // nothing to a user.
    const auto* parse = dynamic_cast<const Json::parse_error*>(&e);
    if (parse && parse->byte <= 1)
      throw CacheError(fmt::format("cannot import {}: not a JSON document (empty, or not JSON from its first byte)",
                                   source));
    if (parse)
      throw CacheError(fmt::format("cannot import {}: not a JSON document (invalid JSON at byte {})", source,
                                   parse->byte));
    throw CacheError(fmt::format("cannot import {}: not a JSON document", source));
  }
}

// --- Fields ---------------------------------------------------------------------------------------------------------

Fields::Fields(const Json& j, std::string where, const std::string& source)
    : j_(j), where_(std::move(where)), source_(source) {
  if (!j_.is_object()) fail("", "is not an object");
}

void Fields::fail(std::string_view key, std::string_view what) const {
  throw CacheError(fmt::format("cannot import {}: {}{}{} {}", source_, where_, key.empty() ? "" : ".", key, what));
}

const Json& Fields::get(const char* key) const {
  const auto it = j_.find(key);
  if (it == j_.end()) fail(key, "is missing");
  return *it;
}

std::string Fields::text(const char* key, std::size_t max) const {
  const Json& v = get(key);
  if (!v.is_string()) fail(key, "is not a string");
  const auto& s = v.get_ref<const std::string&>();
  if (s.size() > max) fail(key, fmt::format("is longer than {} bytes", max));
  return s;
}

std::optional<std::string> Fields::opt_text(const char* key, std::size_t max) const {
  return get(key).is_null() ? std::nullopt : std::optional(text(key, max));
}

std::int64_t Fields::integer(const char* key) const {
  const Json& v = get(key);
  if (!v.is_number_integer()) fail(key, "is not an integer");
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t(INT64_MAX)) fail(key, "is too large");
  return v.get<std::int64_t>();
}

std::optional<std::int64_t> Fields::opt_integer(const char* key) const {
  return get(key).is_null() ? std::nullopt : std::optional(integer(key));
}

std::int64_t Fields::integer(const char* key, std::int64_t lo, std::int64_t hi) const {
  const std::int64_t v = integer(key);
  if (v < lo || v > hi) fail(key, fmt::format("is {}, outside [{}, {}]", v, lo, hi));
  return v;
}

double Fields::number(const char* key) const {
  const Json& v = get(key);
  if (!v.is_number()) fail(key, "is not a number");
  const double d = v.get<double>();
  if (!std::isfinite(d)) fail(key, "is not finite");
  return d;
}

std::optional<double> Fields::opt_number(const char* key) const {
  return get(key).is_null() ? std::nullopt : std::optional(number(key));
}

double Fields::number_at_least(const char* key, double lo, bool strict) const {
  const double v = number(key);
  if (strict ? !(v > lo) : !(v >= lo)) fail(key, fmt::format("is {}, not {} {}", v, strict ? ">" : ">=", lo));
  return v;
}

const Json& Fields::array(const char* key) const {
  const Json& v = get(key);
  if (!v.is_array()) fail(key, "is not an array");
  if (v.size() > kMaxRows) fail(key, fmt::format("has {} elements, more than the limit of {}", v.size(), kMaxRows));
  return v;
}

std::string Fields::time(const char* key) const {
  const std::string t = text(key);
  const auto ms = parse_utc_ms(t);
  // Round trip: "2026-02-30T25:00:00Z" parses (timegm normalizes) but is not a time.
  if (!ms || *ms < 0 ||
      (format_utc_ms(*ms) != t && !(t.size() == 20 && format_utc_ms(*ms) == t.substr(0, 19) + ".000Z")))
    fail(key, fmt::format("'{}' is not a UTC time like 2026-11-29T16:20:00.123Z", t));
  if (*ms > now_ms() + kMaxClockSkewMs)
    fail(key, fmt::format("'{}' lies in the future (more than an hour after this machine's clock)", t));
  return t;
}

// --- the invariants ---------------------------------------------------------------------------------------------------

namespace {

constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();
constexpr std::int64_t kI64Max = std::numeric_limits<std::int64_t>::max();

bool is_lower_hex(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// The device row's model key is its identity: "NAME|sm_XY|NSM|MMiB" (DeviceInfo::model_key). The parts a lookup
// relies on must agree with the columns: the name, the arch (a cubin for it is loaded) and the SM count (the
// similar-device choice). The memory part only has to be a number of MiB: the key was made from the memory size
// the driver reported when the model was first seen, which need not equal the memory_bytes column to the MiB
// (tests/data/cache_v2.db says 143155MiB for 150110011392 bytes).
void check_device(const Fields& f) {
  const std::string name = f.text("name"), model_key = f.text("model_key"), arch = f.text("arch");
  if (name.empty() || name.find('|') != std::string::npos) f.fail("name", "is empty or contains '|'");
  DeviceInfo d;
  d.name = name;
  d.cc_major = static_cast<int>(f.integer("cc_major", 1, 99));
  d.cc_minor = static_cast<int>(f.integer("cc_minor", 0, 9));
  d.sm_count = static_cast<int>(f.integer("sm_count", 1, 1'000'000));
  f.integer("memory_bytes", 1, kI64Max);
  if (arch != d.arch()) f.fail("arch", fmt::format("'{}' does not match the compute capability", arch));
  const std::string prefix = fmt::format("{}|{}|{}SM|", name, arch, d.sm_count);
  const std::string_view mib = model_key.size() > prefix.size() + 3 ? std::string_view(model_key).substr(prefix.size())
                                                                    : std::string_view();
  if (!model_key.starts_with(prefix) || !mib.ends_with("MiB") ||
      !std::all_of(mib.begin(), mib.end() - 3, [](char c) { return c >= '0' && c <= '9'; }))
    f.fail("model_key", fmt::format("'{}' does not match the device's columns ('{}<memory>MiB')", model_key, prefix));
  f.integer("l2_bytes", 0, kI64Max);
  f.integer("shared_per_block_optin", 0, kIntMax);
  f.integer("max_threads_per_block", 1, kIntMax);
  f.integer("clock_khz", 0, kIntMax);
  f.integer("memory_clock_khz", 0, kIntMax);
  f.integer("driver_version", 0, kIntMax);
  f.integer("nvrtc_version", 0, kIntMax);
  f.text("uuid");
  if (f.has("roof_gbps")) f.number_at_least("roof_gbps", 0, true);
}

// The parameters a problem of a format-2 document lists: exactly its key's (core/key_parameters.hpp), each a short
// text. Format 1 listed columns instead (sample_type, bins, lower, upper, op, counter_bits), which repeated the key:
// the key is read, and the parameters stored are derived from it.
void check_parameters(const Fields& f, const Problem& problem) {
  const Json& given = f.get("parameters");
  if (!given.is_object()) f.fail("parameters", "is not an object of parameter names and values");
  const std::vector<KeyParameter> want = key_parameters(problem);
  for (const auto& item : given.items()) {
    const std::string& name = item.key();  // not a structured binding: clang 14 cannot capture one in a lambda
    const Json& value = item.value();
    if (!value.is_string()) f.fail("parameters", fmt::format("'{}' is not text", name.substr(0, 64)));
    const auto it = std::find_if(want.begin(), want.end(), [&](const KeyParameter& p) { return p.name == name; });
    if (it == want.end())
      f.fail("parameters", fmt::format("'{}' is not a parameter of the key '{}'", name.substr(0, 64), problem.key()));
    if (value.get_ref<const std::string&>() != it->value)
      f.fail("parameters", fmt::format("{} is '{}', not the key's '{}'", it->name,
                                       value.get_ref<const std::string&>().substr(0, 64), it->value));
  }
  for (const KeyParameter& p : want)
    if (!given.contains(p.name)) f.fail("parameters", fmt::format("lack the key's {} ({})", p.name, p.value));
}

// Returns the problem's family. A format-2 problem's parameters must be its key's.
std::string check_problem(const Fields& f, std::int64_t format_version) {
  const std::string key = f.text("key"), family_name = f.text("family");
  const KernelFamily* family = find_family(family_name);
  if (!family) f.fail("family", fmt::format("'{}' is not a kernel family this build knows", family_name));
  const auto parsed = Problem::parse(key);
  if (!parsed || parsed->family_name() != family_name)
    f.fail("key", fmt::format("'{}' is not a valid {} problem", key, family_name));
  try {
    parsed->validate();
  } catch (const UsageError& e) {
    f.fail("key", fmt::format("'{}' is not a valid problem ({})", key, e.what()));
  }
  if (parsed->key() != key) f.fail("key", fmt::format("'{}' is not spelled as this build spells it ('{}')", key, parsed->key()));
  if (f.text("shape_key") != parsed->shape_key())
    f.fail("shape_key", fmt::format("'{}' does not match the problem's key ('{}')", f.text("shape_key"), key));
  const std::int64_t n = f.integer("n", 0, kI64Max);
  if (static_cast<std::uint64_t>(n) != parsed->n()) f.fail("n", fmt::format("is {}, not the key's {}", n, parsed->n()));
  if (f.text("distribution") != parsed->distribution())
    f.fail("distribution", fmt::format("'{}' is not the key's '{}'", f.text("distribution"), parsed->distribution()));
  if (format_version >= 2) check_parameters(f, *parsed);
  return family_name;
}

// The document's templates, checked: (family, hash) pairs, each once.
std::set<std::pair<std::string, std::string>> check_templates(const Fields& top, const std::string& source) {
  std::set<std::pair<std::string, std::string>> templates;  // (family, hash)
  const Json& template_rows = top.array("templates");
  for (std::size_t i = 0; i < template_rows.size(); ++i) {
    const Fields f(template_rows[i], fmt::format("templates[{}]", i), source);
    const std::string family = f.text("family"), hash = f.text("hash", 64);
    if (!find_family(family)) f.fail("family", fmt::format("'{}' is not a kernel family this build knows", family));
    if (!is_lower_hex(hash)) f.fail("hash", fmt::format("'{}' is not a hexadecimal hash", hash));
    f.time("first_seen");
    if (!templates.emplace(family, hash).second) f.fail("hash", "appears twice");
  }
  return templates;
}

// A run's measurements, checked; (median, ok) by configuration, for its winner.
std::map<std::string, std::pair<double, bool>> check_measurements(const Fields& f, const std::string& family,
                                                                  const std::string& source) {
  std::map<std::string, std::pair<double, bool>> measured;
  const Json& measurements = f.array("measurements");
  for (std::size_t k = 0; k < measurements.size(); ++k) {
    const Fields m(measurements[k], fmt::format("{}.measurements[{}]", f.where(), k), source);
    const std::string config = m.text("config"), status_text = m.text("status");
    if (!Config::parse(family, config)) m.fail("config", fmt::format("'{}' is not a {} configuration", config, family));
    const auto status = parse_measurement_status(status_text);
    if (!status) m.fail("status", fmt::format("'{}' is not a status", status_text));
    m.text("log", kMaxLog);
    const bool ok = *status == MeasurementStatus::ok;
    const double median = m.number_at_least("median_ms", 0, ok);
    const double spread = m.number_at_least("spread", 0);
    m.integer("samples", ok ? 1 : 0, kIntMax);
    const double gbps = m.number_at_least("gbps", 0, ok);
    // A variant that failed was not timed: its time, spread and speed are 0 (schema.sql), or a status edited from
    // 'ok' would keep a time that readers take for a measurement.
    if (!ok)
      for (const auto& [key, v] : {std::pair{"median_ms", median}, std::pair{"spread", spread}, std::pair{"gbps", gbps}})
        if (v != 0) m.fail(key, fmt::format("is {}, not 0: a '{}' measurement was not timed", v, status_text));
    if (m.has("roof_pct")) m.number_at_least("roof_pct", 0);
    if (!measured.emplace(config, std::pair{median, ok}).second) m.fail("config", "appears twice in the run");
  }
  return measured;
}

// A finished run's winner: one of its ok measurements, on the device's arch, its cubin an ELF image matching its
// SHA-256.
void check_winner(const Fields& f, const Json& winner, bool finished, const std::string& family, const std::string& arch,
                  const std::map<std::string, std::pair<double, bool>>& measured, const std::string& source) {
  if (!finished) f.fail("winner", "belongs to a run that did not finish");
  const Fields w(winner, f.where() + ".winner", source);
  const std::string config = w.text("config");
  if (!Config::parse(family, config)) w.fail("config", fmt::format("'{}' is not a {} configuration", config, family));
  const double median = w.number_at_least("median_ms", 0, true);
  w.number_at_least("gbps", 0, true);
  const auto backing = measured.find(config);
  if (backing == measured.end() || !backing->second.second || backing->second.first != median)
    w.fail("config", fmt::format("'{}' with {} ms is not one of the run's ok measurements", config, median));
  if (w.text("arch") != arch)
    w.fail("arch", fmt::format("'{}' is not the device's arch '{}'", w.text("arch"), arch));
  w.time("tuned_at");
  const bool has_cubin = w.has("cubin");
  if (has_cubin) {
    const auto bytes = base64_decode(w.text("cubin", (kMaxCubin + 2) / 3 * 4));
    if (!bytes) w.fail("cubin", "is not base64");
    if (!integrity::is_elf(*bytes)) w.fail("cubin", "is not an ELF image (a cubin)");
    if (w.has("cubin_sha256") && integrity::sha256_hex(*bytes) != w.text("cubin_sha256"))
      w.fail("cubin_sha256", "does not match the cubin's SHA-256");
  } else if (w.has("cubin_sha256")) {
    w.fail("cubin_sha256", "is set but there is no cubin");
  }
  if (w.has("source_sha256") && !integrity::is_sha256_hex(w.text("source_sha256")))
    w.fail("source_sha256", "is not a SHA-256 in hexadecimal");
  if (w.has("nvrtc_options")) {
    const auto options = parse_bounded(w.text("nvrtc_options"), 2);
    if (!options || !options->is_array() ||
        !std::all_of(options->begin(), options->end(), [](const Json& o) { return o.is_string(); }))
      w.fail("nvrtc_options", "is not a JSON array of strings");
  }
  if (w.has("nvrtc_version")) w.integer("nvrtc_version", 0, kIntMax);
}

// The document's baselines (optional: documents of schema 2 have none), each of a known device and problem, once.
void check_baselines(const Json& doc, const Fields& top, const std::map<std::string, std::string>& device_arch,
                     const std::map<std::string, std::string>& problem_family, const std::string& source) {
  if (const auto it = doc.find("baselines"); it != doc.end() && !it->is_null()) {
    const Json& baselines = top.array("baselines");
    std::set<std::tuple<std::string, std::string, std::string>> seen;
    for (std::size_t i = 0; i < baselines.size(); ++i) {
      const Fields f(baselines[i], fmt::format("baselines[{}]", i), source);
      const std::string device = f.text("device"), problem = f.text("problem"), name = f.text("name");
      if (!device_arch.count(device)) f.fail("device", fmt::format("'{}' is not in the document's devices", device));
      if (!problem_family.count(problem))
        f.fail("problem", fmt::format("'{}' is not in the document's problems", problem));
      if (name.empty()) f.fail("name", "is empty");
      f.number_at_least("median_ms", 0, true);
      f.number_at_least("gbps", 0, true);
      f.time("measured_at");
      if (!seen.emplace(device, problem, name).second) f.fail("name", "appears twice for the device and problem");
    }
  }
}

}  // namespace

void validate_document(const Json& doc, const std::string& source) {
  const Fields top(doc, "document", source);
  if (top.text("format") != kFormat)
    top.fail("format", fmt::format("is '{}', not '{}': not an autotune export", top.text("format"), kFormat));
  const std::int64_t format_version = top.integer("format_version");
  if (format_version > kFormatVersion || format_version < 1)
    top.fail("format_version", fmt::format("is {}: written by a newer autotune (this build reads up to {})",
                                           format_version, kFormatVersion));

  std::map<std::string, std::string> device_arch;  // model_key -> arch
  const Json& devices = top.array("devices");
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const Fields f(devices[i], fmt::format("devices[{}]", i), source);
    check_device(f);
    if (!device_arch.emplace(f.text("model_key"), f.text("arch")).second) f.fail("model_key", "appears twice");
  }

  std::map<std::string, std::string> problem_family;  // key -> family
  const Json& problems = top.array("problems");
  for (std::size_t i = 0; i < problems.size(); ++i) {
    const Fields f(problems[i], fmt::format("problems[{}]", i), source);
    const std::string family = check_problem(f, format_version);
    if (!problem_family.emplace(f.text("key"), family).second) f.fail("key", "appears twice");
  }

  const auto templates = check_templates(top, source);

  std::set<std::tuple<std::string, std::string, std::string, std::string, std::string>> run_keys;
  const Json& runs = top.array("runs");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Fields f(runs[i], fmt::format("runs[{}]", i), source);
    const std::string device = f.text("device"), problem = f.text("problem");
    const auto dev = device_arch.find(device);
    if (dev == device_arch.end()) f.fail("device", fmt::format("'{}' is not in the document's devices", device));
    const auto prob = problem_family.find(problem);
    if (prob == problem_family.end()) f.fail("problem", fmt::format("'{}' is not in the document's problems", problem));
    const std::string& family = prob->second;
    const std::string started_at = f.time("started_at");
    const bool finished = f.has("finished_at");
    if (finished) f.time("finished_at");
    const std::string strategy = f.text("strategy"), tool_version = f.text("tool_version");
    if (strategy.empty()) f.fail("strategy", "is empty");
    if (!run_keys.emplace(device, problem, started_at, tool_version, strategy).second)
      f.fail("started_at", "repeats another run's natural key (device, problem, started_at, tool_version, strategy)");
    if (const auto hash = f.opt_text("template_hash");
        hash && !templates.count({family, *hash}))
      f.fail("template_hash", fmt::format("'{}' is not in the document's templates of family {}", *hash,
                                          family));
    if (f.has("nvrtc_version")) f.integer("nvrtc_version", 0, kIntMax);
    if (f.has("driver_version")) f.integer("driver_version", 0, kIntMax);
    if (const Json& s = f.get("settings"); !s.is_null() && !s.is_object())
      f.fail("settings", "is neither a JSON object nor null");
    if (!f.get("stale").is_boolean()) f.fail("stale", "is not true or false");
    f.opt_text("stale_reason");

    const auto measured = check_measurements(f, family, source);
    if (const Json& winner = f.get("winner"); !winner.is_null())
      check_winner(f, winner, finished, family, dev->second, measured, source);
  }

  check_baselines(doc, top, device_arch, problem_family, source);
}

}  // namespace autotune::cache_detail
