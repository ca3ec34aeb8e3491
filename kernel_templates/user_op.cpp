#include "kernel_templates/user_op.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <utility>

#include "autotune/error.hpp"
#include "core/integrity.hpp"
#include "core/jit.hpp"
#include "embedded.hpp"
#include "kernel_templates/preamble.hpp"
#include "kernel_templates/value_types.hpp"

namespace autotune {

namespace {

constexpr std::size_t kMaxText = 4096;

std::string collapse_whitespace(std::string_view text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

// Why `text` is not one expression that stays inside the parentheses it is pasted into, or empty.
std::string expression_error(std::string_view text) {
  if (text.size() > kMaxText) return fmt::format("is {} characters long (at most {})", text.size(), kMaxText);
  std::string open;  // the brackets opened and not yet closed
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\0' || std::string_view(";{}#\\\"'`").find(c) != std::string_view::npos)
      return fmt::format("contains '{}' at {}: one expression has no statements, blocks, directives or literals",
                         c == '\0' ? std::string("\\0") : std::string(1, c), i);
    if (c == '/' && i + 1 < text.size() && (text[i + 1] == '/' || text[i + 1] == '*'))
      return fmt::format("contains a comment at {}", i);
    // Digraphs: %: is '#', <% %> are braces, <: :> brackets the count below would not see.
    for (std::string_view digraph : {"%:", "<%", "%>", "<:", ":>"})
      if (text.substr(i, 2) == digraph) return fmt::format("contains the digraph '{}' at {}", digraph, i);
    if (c == '(' || c == '[') open += c;
    if (c == ')' || c == ']') {
      if (open.empty() || open.back() != (c == ')' ? '(' : '['))
        return fmt::format("closes a '{}' at {} that it did not open", c, i);
      open.pop_back();
    }
  }
  if (!open.empty()) return fmt::format("leaves a '{}' open", open.back());
  return {};
}

}  // namespace

UserOp canonical(const UserOp& user) {
  UserOp c{collapse_whitespace(user.op), collapse_whitespace(user.identity), collapse_whitespace(user.transform)};
  if (c.transform == "x") c.transform.clear();
  return c;
}

void validate_user_op(const UserOp& user) {
  const UserOp c = canonical(user);
  if (c.op.empty()) throw UsageError("the user operator is empty: give an expression in a and b, e.g. 'a > b ? a : b'");
  if (c.identity.empty())
    throw UsageError("the user operator needs an identity: an expression e with op(e, v) == v, e.g. -INFINITY");
  for (const auto& [part, text] : {std::pair{"op", &user.op}, {"identity", &user.identity},
                                   {"transform", &user.transform}})
    if (const std::string why = expression_error(*text); !why.empty())
      throw UsageError(fmt::format("the user operator's {} '{}' {}", part, *text, why));
}

std::string user_op_hash(const UserOp& user, ValueType type, ValueType accumulator) {
  const UserOp c = canonical(user);
  // Versioned, and every field behind a NUL (which no text holds): no two different operators share a form.
  std::string form = "autotune user operator 1";
  for (std::string_view field : {to_string(type), to_string(accumulator), std::string_view(c.transform),
                                 std::string_view(c.op), std::string_view(c.identity)}) {
    form += '\0';
    form += field;
  }
  return integrity::sha256_hex(form).substr(0, 16);
}

namespace reduce_detail {

bool is_user_hash(std::string_view text) {
  return text.size() == 16 &&
         std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::string user_op_functions(const UserOp& user) {
  const UserOp c = canonical(user);
  // The constants of <math.h>, <float.h> and <limits.h> that NVRTC lacks without headers, for these lines only.
  static constexpr std::string_view kConstants[][2] = {
      {"INFINITY", "__int_as_float(0x7f800000)"}, {"NAN", "__int_as_float(0x7fc00000)"},
      {"FLT_MAX", "3.402823466e+38F"},            {"DBL_MAX", "1.7976931348623158e+308"},
      {"INT_MAX", "2147483647"},                  {"INT_MIN", "(-2147483647 - 1)"},
      {"UINT_MAX", "4294967295U"},                {"LLONG_MAX", "9223372036854775807LL"},
      {"LLONG_MIN", "(-9223372036854775807LL - 1)"}, {"ULLONG_MAX", "18446744073709551615ULL"}};
  std::string defines, undefs;
  for (const auto& [name, value] : kConstants) {
    defines += fmt::format("#define {} {}\n", name, value);
    undefs += fmt::format("#undef {}\n", name);
  }
  return fmt::format(
      "#define AT_USER_OP 1\n"
      "{}"
      "__device__ __forceinline__ acc_t user_transform(acc_t x) {{\n"
      "  return static_cast<acc_t>((\n#line 1 \"transform\"\n{}\n));\n}}\n"
      "__device__ __forceinline__ acc_t user_op(acc_t a, acc_t b) {{\n"
      "  return static_cast<acc_t>((\n#line 1 \"op\"\n{}\n));\n}}\n"
      "__device__ __forceinline__ acc_t user_identity() {{\n"
      "  return static_cast<acc_t>((\n#line 1 \"identity\"\n{}\n));\n}}\n"
      "{}",
      defines, c.transform.empty() ? "x" : c.transform, c.op, c.identity, undefs);
}

std::string reduction_variant_source(std::string pre, const UserOp* user, std::string_view name,
                                     std::string_view text) {
  if (user != nullptr) pre += user_op_functions(*user);
  pre += "}  // namespace at\n";
  return preamble::variant_source(std::move(pre), name, text,
                                  {{"user_op.cuh", embedded::user_op_cuh},
                                   {"reduction_common.cuh", embedded::reduction_common_cuh}});
}

void compile_user_op(const UserOp& user, ValueType accumulator, const std::string& arch) {
  const std::string source = fmt::format(
      "namespace at {{\ntypedef {} acc_t;\n{}}}\n"
      "extern \"C\" __global__ void autotune_user_op_check(at::acc_t* out) {{\n"
      "  *out = at::user_op(at::user_transform(*out), at::user_identity());\n}}\n",
      info(accumulator).cuda, user_op_functions(user));
  const jit::CompileResult r = jit::compile(source, "user_op.cu", arch);
  if (!r.ok)
    throw UsageError(fmt::format("the user operator (op '{}', identity '{}', transform '{}') does not compile for {} "
                                 "with acc_t = {}:\n{}",
                                 user.op, user.identity, user.transform, arch, to_string(accumulator), r.log));
}

}  // namespace reduce_detail

}  // namespace autotune
