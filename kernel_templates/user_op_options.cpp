// How an operator of the user's own is spelled outside the kernel: in a problem key ("user:<hash>") and on the
// command line (--user-op, --identity, --transform). Shared by every family that takes a UserOp (reduce, segreduce).
// Kept apart from user_op.cpp, whose text is part of the reduction family's code identity (code_text()): nothing here
// changes what a variant compiles to.
#include <fmt/format.h>

#include "autotune/error.hpp"
#include "kernel_templates/user_op.hpp"

namespace autotune::reduce_detail {

namespace {
constexpr std::string_view kUserKeyPrefix = "user:";
}  // namespace

std::string user_key_part(std::string_view hash) { return fmt::format("{}{}", kUserKeyPrefix, hash); }

std::optional<std::string> parse_user_key_part(std::string_view part) {
  if (!part.starts_with(kUserKeyPrefix) || !is_user_hash(part.substr(kUserKeyPrefix.size()))) return std::nullopt;
  return std::string(part.substr(kUserKeyPrefix.size()));
}

std::optional<UserOp> user_op_from_options(const ProblemOptions& o) {
  auto given = [&](const char* k) { return o.count(k) != 0; };
  if (!given("user-op")) {
    for (const char* only : {"identity", "transform"})
      if (given(only)) throw UsageError(fmt::format("--{} goes with --user-op", only));
    return std::nullopt;
  }
  if (given("op")) throw UsageError("--op and --user-op exclude each other: --user-op is the operation");
  if (!given("identity")) throw UsageError("--user-op needs --identity (an expression e with op(e, v) == v)");
  return UserOp{o.at("user-op"), o.at("identity"), given("transform") ? o.at("transform") : std::string()};
}

std::string user_op_command_options(const UserOp& user, std::string_view hash) {
  if (user.op.empty())  // read back from a key: the source is the application's
    return fmt::format("--user-op <the source of {}> --identity <its identity>", user_key_part(hash));
  // In single quotes, which the text never holds (validate_user_op): a command line to copy.
  auto quoted = [](const std::string& text) { return "'" + text + "'"; };
  const UserOp c = canonical(user);
  std::string out = fmt::format("--user-op {} --identity {}", quoted(c.op), quoted(c.identity));
  if (!c.transform.empty()) out += fmt::format(" --transform {}", quoted(c.transform));
  return out;
}

}  // namespace autotune::reduce_detail
