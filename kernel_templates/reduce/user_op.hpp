// Operators of the user's own (autotune::UserOp): checking the text, hashing it, turning it into device functions
// for the reduction template, and finding out early whether NVRTC takes it. Internal to the reduction family.
#pragma once

#include <string>
#include <string_view>

#include "autotune/reduce_problem.hpp"

namespace autotune {

/// Throws UsageError naming the part (op, identity, transform) and the offending character when a text is empty
/// (op, identity), longer than 4096 characters, or not confined to one expression: it may not contain `;`, `{`, `}`,
/// `#`, `\`, quotes, comment markers or digraphs, and its parentheses and brackets must balance without closing one that it
/// did not open.
void validate_user_op(const UserOp& user);

namespace reduce_detail {

/// 16 lowercase hex digits: the form of a user operator's hash in a key.
bool is_user_hash(std::string_view text);

/// The device functions that carry the operator into kernel_templates/reduce/reduce.cu, in namespace `at` after
/// acc_t is declared: user_transform(acc_t x), user_op(acc_t a, acc_t b), user_identity(). Each expression stands on
/// a line of its own behind a #line directive naming it ("transform", "op", "identity"), so that NVRTC's errors
/// point into the user's text. The constants the README lists are macros defined for these lines only.
std::string user_op_functions(const UserOp& user);

}  // namespace reduce_detail

/// Compiles the user operator of `problem` alone (its functions and a kernel that calls each) for `arch` and throws
/// UsageError with NVRTC's log when it does not compile; nothing for a built-in operator. Called where a user
/// operator enters (a handle's construction, the CLI's problem), so that its errors are the user's, not a
/// variant's. Needs NVRTC (Error when it cannot be loaded).
void check_user_op_compiles(const ReduceProblem& problem, const std::string& arch);

}  // namespace autotune
