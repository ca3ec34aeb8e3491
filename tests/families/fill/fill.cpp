#include "tests/families/fill/fill.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>

#include "autotune/error.hpp"
#include "core/cuda.hpp"
#include "core/family.hpp"
#include "core/key_text.hpp"
#include "core/option_text.hpp"

namespace autotune::test {

namespace {

// The template: one grid-stride loop; the preamble defines AT_ITEMS.
constexpr std::string_view kTemplate = R"(
extern "C" __global__ void autotune_fill(unsigned* out, unsigned long long n, unsigned value) {
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x * AT_ITEMS;
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x * AT_ITEMS + threadIdx.x; i < n;
       i += stride) {
#pragma unroll
    for (int k = 0; k < AT_ITEMS; ++k) {
      const unsigned long long j = i + (unsigned long long)k * blockDim.x;
      if (j < n) out[j] = value;
    }
  }
}
)";

const FillProblem& fill_of(const Problem& p) {
  const auto* f = p.as<FillProblem>();
  if (!f) throw UsageError(fmt::format("'{}' is not a fill problem", p.key()));
  return *f;
}
const FillConfig& config_of(const Config& c) {
  const auto* f = c.as<FillConfig>();
  if (!f) throw UsageError(fmt::format("'{}' is not a fill configuration", c.key()));
  return *f;
}

// The space, as the workload measures it and as `autotune tune` compiles it ahead (KernelFamily::space).
std::vector<Config> fill_space() {
  std::vector<Config> out;
  for (int block : {128, 256, 512})
    for (int items : {1, 4}) out.push_back(FillConfig{block, items});
  return out;
}

class FillWorkload final : public Workload {
 public:
  FillWorkload(const FillProblem& p, const DeviceInfo& d) : problem_(p), device_(d), out_(std::max<std::uint64_t>(p.n, 4) * 4) {}

  std::vector<Config> space() const override { return fill_space(); }
  std::string violation(const Config& c) const override {
    return config_of(c).block > device_.max_threads_per_block ? "block too large" : "";
  }

  class Variant final : public LoadedVariant {
   public:
    Variant(const FillWorkload& w, const FillConfig& c, const std::vector<char>& cubin, bool poison)
        : w_(w), c_(c), module_(cubin, "autotune_fill"), out_(poison ? const_cast<void*>(poison_address()) : w.out_.get()) {}
    void run(cudaStream_t stream) const override {
      const std::uint64_t per_block = static_cast<std::uint64_t>(c_.block) * c_.items;
      const unsigned grid = static_cast<unsigned>(std::min<std::uint64_t>((w_.problem_.n + per_block - 1) / per_block + 1, 65535));
      unsigned long long n = w_.problem_.n;
      unsigned value = w_.problem_.value;
      void* out = out_;
      void* args[] = {&out, &n, &value};
      AUTOTUNE_CUDA(cudaLaunchKernel(reinterpret_cast<const void*>(module_.kernel()), dim3(grid), dim3(c_.block), args,
                                     0, stream));
    }
    std::string check(cudaStream_t stream) const override {
      return w_.check_call([this](cudaStream_t s) { run(s); }, stream);
    }

   private:
    const FillWorkload& w_;
    FillConfig c_;
    cuda::Module module_;
    void* out_;
  };

  std::unique_ptr<LoadedVariant> load(const Config& c, const std::vector<char>& cubin, bool poison) const override {
    return std::make_unique<Variant>(*this, config_of(c), cubin, poison);
  }
  const void* input() const override { return nullptr; }
  void* output() const override { return out_.get(); }
  std::string check_call(const std::function<void(cudaStream_t)>& call, cudaStream_t stream) const override {
    std::vector<std::uint32_t> got(problem_.n);
    AUTOTUNE_CUDA(cudaMemsetAsync(out_.get(), 0xAB, problem_.n * 4, stream));
    call(stream);
    AUTOTUNE_CUDA(cudaMemcpyAsync(got.data(), out_.get(), problem_.n * 4, cudaMemcpyDeviceToHost, stream));
    AUTOTUNE_CUDA(cudaStreamSynchronize(stream));
    for (std::uint64_t i = 0; i < problem_.n; ++i)
      if (got[i] != problem_.value) return fmt::format("word {} is {:#x}, not {:#x}", i, got[i], problem_.value);
    return "";
  }

 private:
  FillProblem problem_;
  DeviceInfo device_;
  cuda::DeviceBuffer out_;
};

class FillFamily final : public KernelFamily {
 public:
  std::string_view name() const override { return FillProblem::kFamily; }
  std::string_view summary() const override { return "fills n 32-bit words with a value (a test family)"; }

  std::optional<Problem> parse_problem(std::string_view key) const override {
    using namespace key_text;
    const auto parts = problem_parts(key);
    if (parts.size() != 5 || parts[0] != name() || parts[1] != "u32") return std::nullopt;
    auto named = named_parts(parts, 2);
    if (!named) return std::nullopt;
    const auto value = take(*named, "value"), n = take(*named, "n"), dist = take(*named, "dist");
    if (!value || !n || !dist || !named->empty()) return std::nullopt;
    const auto v = to_u64(*value), nn = to_u64(*n);
    if (!v || !nn || *v > 0xFFFFFFFFu) return std::nullopt;
    return Problem(FillProblem{static_cast<std::uint32_t>(*v), *nn, *dist});
  }
  std::vector<std::string> key_part_names() const override { return {"type"}; }  // "fill/u32/value=..."
  std::optional<double> shape_distance(const Problem& wanted, const Problem& tuned) const override {
    return fill_of(wanted).value == fill_of(tuned).value ? 0.0 : 1.0;  // any value is written the same way
  }
  std::string violation(const Problem&, const Config& c, const DeviceInfo* device) const override {
    return device && config_of(c).block > device->max_threads_per_block ? "block too large" : "";
  }
  std::optional<Config> parse_config(std::string_view key) const override {
    const auto fields = key_text::split(key);
    if (!fields || fields->size() != 2 || !fields->count("block") || !fields->count("items")) return std::nullopt;
    const auto block = key_text::to_int(fields->at("block")), items = key_text::to_int(fields->at("items"));
    if (!block || !items || *block < 32 || *block > 1024 || *items < 1 || *items > 16) return std::nullopt;
    return Config(FillConfig{*block, *items});
  }
  Config fallback(const Problem&) const override { return FillConfig{}; }
  int launches(const Config&) const override { return 1; }
  std::size_t shared_bytes(const Problem&, const Config&) const override { return 0; }
  ReportAxes report_axes(const Config& c) const override { return {config_of(c).block, config_of(c).items, "fill"}; }
  std::string_view baseline_name() const override { return "cudaMemsetD32"; }

  std::string kernel_source(const Problem& p, const Config& c) const override {
    fill_of(p);
    return fmt::format("#define AT_ITEMS {}\n{}", config_of(c).items, kTemplate);
  }
  std::string code_text() const override { return std::string(kTemplate); }

  std::vector<std::string> distributions() const override { return {"uniform"}; }
  std::vector<Config> space(const Problem& p) const override {
    fill_of(p);
    return fill_space();
  }
  std::vector<Problem> default_problems() const override { return {}; }  // not in `autotune tune`'s default set
  std::uint64_t output_bytes(const Problem& p) const override { return fill_of(p).n * 4; }
  std::unique_ptr<Workload> make_workload(const Problem& p, const DeviceInfo& d, std::uint64_t) const override {
    return std::make_unique<FillWorkload>(fill_of(p), d);
  }

  std::vector<ProblemParameter> problem_parameters() const override {
    return {{"value", "V", "the 32-bit value to write (a test family)"}};
  }
  Problem make_problem(const ProblemOptions& o) const override {
    FillProblem p;
    if (o.count("value")) {
      const long long v = option_text::to_integer("value", o.at("value"));
      if (v < 0 || v > 0xFFFFFFFFll) throw UsageError(fmt::format("--value: {} is not a 32-bit unsigned value", v));
      p.value = static_cast<std::uint32_t>(v);
    }
    p.n = parse_size(o.at("n"));
    if (o.count("dist")) p.distribution = o.at("dist");
    p.validate();
    return p;
  }
  std::string command_options(const Problem& p) const override {
    return fmt::format("--value {}", fill_of(p).value);
  }
  std::string example_options() const override { return "--value 7 --n 1M"; }
};

}  // namespace

std::string FillProblem::key() const { return fmt::format("fill/u32/value={}/n={}/dist={}", value, n, distribution); }
std::string FillProblem::shape_key() const { return fmt::format("fill/u32/value={}/dist={}", value, distribution); }
void FillProblem::validate() const {
  if (distribution != "uniform") throw UsageError(fmt::format("unknown distribution '{}' (known: uniform)", distribution));
}
std::string FillConfig::key() const { return fmt::format("block={},items={}", block, items); }

void register_fill_family() {
  static std::once_flag once;
  std::call_once(once, [] { register_family(std::make_unique<FillFamily>()); });
}

}  // namespace autotune::test
