// The device side of an operator of the user's own, in the templates that take one (reduce/reduce.cu,
// segreduce/segreduce.cu; the host side: user_op.hpp). For ReduceOp::user and SegOp::user the preamble defines
// user_transform, user_op and user_identity after acc_t (user_op_functions(), with AT_USER_OP); for a built-in
// operator they are only named in branches `if constexpr` discards, so these declarations are enough. Each template
// includes this at file scope (`#include "user_op.cuh"`), kernel_source() puts the text in its place.
#ifndef AT_USER_OP
namespace at {
__device__ acc_t user_transform(acc_t x);
__device__ acc_t user_op(acc_t a, acc_t b);
__device__ acc_t user_identity();
}  // namespace at
#endif
