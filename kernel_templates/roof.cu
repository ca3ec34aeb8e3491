// The read roof: what any kernel that reads every input byte once can at best reach on this device. A grid-stride
// stream of 16-byte loads, four in flight per thread, folded into one register; the result is stored only in a case
// the data never produces, so the loads stay live. Compiled with NVRTC like the kernel templates (no preamble).
extern "C" __global__ void __launch_bounds__(512)
autotune_read_roof(const uint4* __restrict__ in, unsigned long long n16, unsigned* __restrict__ sink) {
  unsigned acc = 0;
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n16; i += 4 * stride) {
    const uint4 a = in[i], b = in[i + stride], c = in[i + 2 * stride], d = in[i + 3 * stride];
    acc ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^ d.z ^ d.w;
  }
  for (; i < n16; i += stride) {
    const uint4 a = in[i];
    acc ^= a.x ^ a.y ^ a.z ^ a.w;
  }
  if (acc == 0x9E3779B9u) *sink = acc;
}
