// The histogram kernel's 2D mapping: where vector j of a region's rows lies, and where its leftover samples (each
// row's unaligned head and tail) lie. A fragment of histogram.cu, which includes it inside namespace `at`;
// kernel_source() puts its text in place of the #include (preamble::variant_source). It uses only u64 and what the
// preamble and histogram.cu define before the #include (sample_t, raw_t, kVecBytes, kElemsPerVec), and its functions
// are AT_HOST_DEVICE (common.cuh), so that tests/cpu/test_config.cpp compiles this very code for the host, with
// constants of its own, and checks it against HistogramKernel::region_args (the host's half of the mapping).

// x / d for the 2D mapping, d and its magic number from the host (HistogramKernel::launch): where the numerators fit
// 32 bits and d > 1, a multiply-high (Granlund-Montgomery, unsigned: magic = 2^32 (2^l - d) / d + 1, shift = l - 1,
// l = ceil(log2 d)); otherwise (shift < 0) a division, or x itself for d <= 1.
struct Divider {
  u64 d;
  unsigned magic;
  int shift;
  AT_HOST_DEVICE u64 div(u64 x) const {
    if (shift >= 0) {
#ifdef __CUDA_ARCH__
      const unsigned x32 = static_cast<unsigned>(x), t = __umulhi(x32, magic);
#else
      const unsigned x32 = static_cast<unsigned>(x), t = static_cast<unsigned>((static_cast<u64>(x32) * magic) >> 32);
#endif
      return (t + ((x32 - t) >> 1)) >> shift;
    }
    return d <= 1 ? x : x / d;
  }
};

// 2D: V vectors per row from the row's first aligned sample; vector j is number j mod V of row j / V. Rows whose
// starts share their alignment (a stride that is a multiple of the vector: the usual padded image) have
// V = (row - head) / E and vector j is at vin0[j + (j / V) * (stride / E - V)]; otherwise V is what every row holds
// whatever its alignment, (row - (E - 1)) / E, and each load finds its row's head. Everything that does not depend
// on the thread (V, the head of row 0, the magic numbers: HistogramKernel::region_args) is computed once by the
// host. Computed per thread, as before, a 64-bit division and a loop ran in every thread of the grid before its
// first load; a padded 7680 x 4320 RGBA crop with no head or tail took 4.6 % longer than the same pixels packed
// (bench/results/2026-12-01d-h200-histimage-image-bench.md), and that setup and the per-load row arithmetic were
// all that differed.
struct Rows {
  const sample_t* in;
  const raw_t* vin0;  // same alignment: the first vector of row 0
  u64 row_stride, gap_vecs, head0;
  Divider vecs;  // V vectors per row
  bool same;
  AT_HOST_DEVICE static Rows make(const sample_t* in, u64 row_stride, u64 head0, Divider vecs) {
    Rows m;
    m.in = in, m.row_stride = row_stride, m.head0 = head0, m.vecs = vecs;
    m.same = (row_stride * sizeof(sample_t)) % kVecBytes == 0;
    m.vin0 = reinterpret_cast<const raw_t*>(in + head0);
    m.gap_vecs = m.same ? row_stride / kElemsPerVec - vecs.d : 0;
    return m;
  }
  // Samples before the row's first vector-aligned one.
  AT_HOST_DEVICE static u64 head_of(const sample_t* row) {
    const unsigned misalign = static_cast<unsigned>(reinterpret_cast<u64>(row) % kVecBytes);
    return misalign ? (kVecBytes - misalign) / sizeof(sample_t) : 0;
  }
  AT_HOST_DEVICE u64 row_head(u64 r) const { return same ? head0 : head_of(in + r * row_stride); }
  AT_HOST_DEVICE raw_t load(u64 j) const {
    const u64 r = vecs.div(j);
    if (same) return vin0[j + r * gap_vecs];
    const sample_t* row = in + r * row_stride;
    return reinterpret_cast<const raw_t*>(row + head_of(row))[j - r * vecs.d];
  }
  // The vector's first sample within its row (rows start on a pixel).
  AT_HOST_DEVICE u64 first_sample(u64 j) const {
    const u64 r = vecs.div(j), c = j - r * vecs.d;
    return row_head(r) + c * kElemsPerVec;
  }
  // Leftover sample q of the region (`leftover` = per_row.d = L per row: the row's head, then its tail after
  // `row_vec_samples` samples of vectors): its place within its row r, which is sample r * row_stride + x from `in`.
  AT_HOST_DEVICE u64 leftover_at(u64 q, const Divider& per_row, u64 leftover, u64 row_vec_samples, u64& r) const {
    r = per_row.div(q);
    const u64 k = q - r * leftover;
    return k < row_head(r) ? k : k + row_vec_samples;
  }
};

// A region counted as one span (HistogramKernel::region_args: span = 1): gap sample q, of the rows - 1 gaps of `gap`
// samples that follow rows 0 .. rows - 2, is sample r * row_stride + row_samples + k from `in`.
AT_HOST_DEVICE u64 gap_sample(u64 q, const Divider& per_gap, u64 gap, u64 row_samples, u64 row_stride) {
  const u64 r = per_gap.div(q);
  return r * row_stride + row_samples + (q - r * gap);
}
