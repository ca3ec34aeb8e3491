// The range-histogram kernel's 2D mapping: the channel of a sample, where each vector of a region's rows lies (the
// grid's walk over them: Cursor, count_region_vectors) and where each leftover sample lies (a row's head and tail:
// count_region). A fragment of histogram_range.cu, which includes it inside namespace `at`; kernel_source() puts its
// text in place of the #include (preamble::variant_source). It uses u64, __ldg and what the preamble and
// histogram_range.cu define before the #include (sample_t, raw_t, Vec, kVecBytes, kElemsPerVec, kLoads, kChannels,
// Binner, Counter, count_sample), and its functions are AT_HOST_DEVICE (common.cuh), so that
// tests/cpu/test_histogram_range.cpp compiles this very code for the host, with constants of its own and an __ldg
// that records every address read.

// Channel of the sample at index i (of the samples, or of a row: rows start on a pixel).
AT_HOST_DEVICE int channel_at(u64 i) { return kChannels == 1 ? 0 : static_cast<int>(i % kChannels); }

// 2D: the vectors of a region, V per row from each row's first vector-aligned sample. Rows whose starts share their
// alignment (kSame: a stride that is a multiple of the vector, the usual padded image) hold V = (row - head) / E
// vectors and vector (r, c) is at vin0[r * stride_vecs + c]; otherwise V = (row - (E - 1)) / E, what every row holds
// whatever its alignment, and each load finds its row's head.
AT_HOST_DEVICE u64 head_of(const sample_t* row) {
  const unsigned misalign = static_cast<unsigned>(reinterpret_cast<u64>(row) % kVecBytes);
  return misalign ? (kVecBytes - misalign) / sizeof(sample_t) : 0;
}
template <bool kSame>
AT_HOST_DEVICE raw_t load_vector(const sample_t* in, const raw_t* vin0, u64 stride, unsigned r, unsigned c) {
  if constexpr (kSame) return __ldg(vin0 + r * stride + c);  // stride in vectors
  const sample_t* row = in + r * stride;                      // stride in samples
  return __ldg(reinterpret_cast<const raw_t*>(row + head_of(row)) + c);
}

// A thread's position (row r, column c) in the region's sequence of vectors, advanced by the grid's `threads`
// vectors at a time: threads = q * V + rem, so a step is two additions and at most one carry (no division per
// load). 32-bit: the host keeps rows and V below 2^31.
struct Cursor {
  unsigned r, c, q, rem, v;
  AT_HOST_DEVICE void step() {
    r += q;
    c += rem;
    if (c >= v) c -= v, ++r;
  }
};

// Counts the rows * V vectors of a region over the grid in tiles of threads * kLoads vectors, as the 1D loop does.
// count(vector, r, c) is given each vector's row and column.
template <bool kSame, class Count>
AT_HOST_DEVICE void count_region_vectors(const sample_t* in, const raw_t* vin0, u64 stride, unsigned rows, unsigned V,
                                         u64 threads, u64 tid, Count count) {
  const u64 nvec = static_cast<u64>(rows) * V;
  Cursor cur;
  cur.v = V;
  cur.q = static_cast<unsigned>(threads / V);
  cur.rem = static_cast<unsigned>(threads - static_cast<u64>(cur.q) * V);
  cur.r = static_cast<unsigned>(tid / V);
  cur.c = static_cast<unsigned>(tid - static_cast<u64>(cur.r) * V);
  const u64 tile = threads * kLoads;
  u64 base = 0;
  for (; base + tile <= nvec; base += tile) {
    Vec v[kLoads];
    unsigned r[kLoads], c[kLoads];
#pragma unroll
    for (int k = 0; k < kLoads; ++k) {
      v[k].raw = load_vector<kSame>(in, vin0, stride, cur.r, cur.c);
      r[k] = cur.r, c[k] = cur.c;
      cur.step();
    }
#pragma unroll
    for (int k = 0; k < kLoads; ++k) count(v[k], r[k], c[k]);
  }
#pragma unroll
  for (int k = 0; k < kLoads; ++k) {
    if (cur.r < rows) {
      Vec v;
      v.raw = load_vector<kSame>(in, vin0, stride, cur.r, cur.c);
      count(v, cur.r, cur.c);
    }
    cur.step();
  }
}

// 2D regions: each row's samples outside its vectors (its head and its tail), one at a time, then the vectors.
template <class Count>
AT_HOST_DEVICE void count_region(const sample_t* __restrict__ in, u64 row_samples, u64 rows, u64 row_stride,
                                 u64 threads, u64 tid, const Binner& binner, const Counter& counter, Count count) {
  // Rows starting on one alignment (a stride of whole vectors) share row 0's head; others each find their own.
  const bool same = (row_stride * sizeof(sample_t)) % kVecBytes == 0;
  const u64 head0 = head_of(in) < row_samples ? head_of(in) : row_samples;
  const u64 V = same ? (row_samples - head0) / kElemsPerVec
                     : (row_samples >= kElemsPerVec - 1 ? (row_samples - (kElemsPerVec - 1)) / kElemsPerVec : 0);
  // k < head are the head, the rest the tail.
  const u64 leftover = row_samples - V * kElemsPerVec;
  for (u64 q = tid; q < rows * leftover; q += threads) {
    const u64 r = q / leftover, k = q - r * leftover;
    const sample_t* row = in + r * row_stride;
    const u64 head = same ? head0 : head_of(row);
    const u64 x = k < head ? k : k + V * kElemsPerVec;
    count_sample(__ldg(row + x), channel_at(x), binner, counter);
  }
  const raw_t* vin0 = reinterpret_cast<const raw_t*>(in + head0);
  if (V > 0 && same)
    count_region_vectors<true>(in, vin0, row_stride / kElemsPerVec, static_cast<unsigned>(rows),
                               static_cast<unsigned>(V), threads, tid,
                               [&](const Vec& v, unsigned, unsigned c) { count(v, head0 + static_cast<u64>(c) * kElemsPerVec); });
  else if (V > 0)
    count_region_vectors<false>(in, vin0, row_stride, static_cast<unsigned>(rows), static_cast<unsigned>(V), threads,
                                tid, [&](const Vec& v, unsigned r, unsigned c) {
                                  count(v, head_of(in + r * row_stride) + static_cast<u64>(c) * kElemsPerVec);
                                });
}
