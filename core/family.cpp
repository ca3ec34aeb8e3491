// The registry of kernel families (core/family.hpp). The built-in families come from kernel_templates/registry.cpp,
// registered on first use; tests and applications may add their own.
#include "core/family.hpp"

#include <fmt/format.h>

#include <mutex>

#include "autotune/error.hpp"

namespace autotune {

namespace {

struct Registry {
  std::vector<std::unique_ptr<KernelFamily>> owned;
  Registry() : owned(built_in_families()) {}
};

Registry& registry() {
  static Registry r;  // thread-safe initialization
  return r;
}

}  // namespace

std::vector<const KernelFamily*> families() {
  std::vector<const KernelFamily*> out;
  for (const auto& f : registry().owned) out.push_back(f.get());
  return out;
}

const KernelFamily* find_family(std::string_view name) {
  for (const auto& f : registry().owned)
    if (f->name() == name) return f.get();
  return nullptr;
}

const KernelFamily& family_named(std::string_view name) {
  if (const KernelFamily* f = find_family(name)) return *f;
  std::string known;
  for (const auto& f : registry().owned) known += fmt::format("{}{}", known.empty() ? "" : ", ", f->name());
  throw UsageError(fmt::format("unknown kernel family '{}' (known: {})", name, known));
}

void register_family(std::unique_ptr<KernelFamily> family) {
  if (!family) throw UsageError("register_family: no family");
  if (find_family(family->name()))
    throw UsageError(fmt::format("register_family: a family named '{}' is registered already", family->name()));
  registry().owned.push_back(std::move(family));
}

}  // namespace autotune
