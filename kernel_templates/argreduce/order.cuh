// The arg-reduction kernel's order of (value, index) pairs and its packed keys: how a candidate beats another, how
// pairs combine, how the result is stored, and the 64-bit keys of the packed path (order(v) << 32 | ~index) with their
// decoding (the semantics: the top of argreduce.cu). A fragment of argreduce.cu, which includes it inside namespace
// `at`; kernel_source() puts its text in place of the #include (preamble::variant_source). It uses only u64 and the
// preamble's constants (in_t, kArgMax, kIsFloat, kIdentityBits, kEmptyBits), and its functions are AT_HOST_DEVICE
// (common.cuh), so that tests/cpu/test_argreduce.cpp compiles this very code for the host, once per type and
// operation, and checks it against the CPU reference on arrays split over emulated threads as the kernel splits them.

constexpr u64 kNone = ~0ull;          // no index: the identity's
constexpr unsigned kNoOrdinal = ~0u;  // the same for a thread's ordinals (argreduce.cu's scan)

AT_HOST_DEVICE in_t from_bits(u64 b) {
  if constexpr (sizeof(in_t) == 4) {
    const unsigned w = static_cast<unsigned>(b);
    return *reinterpret_cast<const in_t*>(&w);
  } else {
    return *reinterpret_cast<const in_t*>(&b);
  }
}

// Whether b beats a strictly: more extreme, or NaN against a number. No fast-math: x != x holds only for NaN.
AT_HOST_DEVICE bool better(in_t b, in_t a) {
  if constexpr (kIsFloat) {
    if constexpr (kArgMax) return !(b <= a) && a == a;  // b > a, or b NaN and a not
    else return !(b >= a) && a == a;
  } else {
    if constexpr (kArgMax) return b > a;
    else return b < a;
  }
}

// Equal in the order: ==, or both NaN.
AT_HOST_DEVICE bool same(in_t a, in_t b) {
  if constexpr (kIsFloat) return a == b || (a != a && b != b);
  else return a == b;
}

struct Pair {
  in_t v;
  u64 i;
};

AT_HOST_DEVICE Pair identity() { return Pair{from_bits(kIdentityBits), kNone}; }

// The greater of two pairs in the total order: the one combine of the scalar edges, the block and the grid.
AT_HOST_DEVICE Pair combine(Pair a, Pair b) {
  return (better(b.v, a.v) || (same(a.v, b.v) && b.i < a.i)) ? b : a;
}

// The result at `out`: value at byte 0, index at byte 8.
AT_HOST_DEVICE void store(unsigned char* out, Pair p, u64 n) {
  if (n == 0) {
    p.v = from_bits(kEmptyBits);  // CUB's value and index for an empty input
    p.i = 1;
  } else if (p.i == kNone || same(p.v, from_bits(kIdentityBits))) {
    // The extreme is the identity (-inf for an arg-max of floats, the type's lowest for integers, ...): every element
    // equals it, and the first one, index 0, is the answer (p.v is its value). Not only when no thread took an
    // element: the scalar head and tail take theirs with their index, and where the input is aligned index 0 sits in
    // the vectors, whose scans never take an element equal to the identity.
    p.i = 0;
  }
  *reinterpret_cast<in_t*>(out) = p.v;
  *reinterpret_cast<u64*>(out + 8) = p.i;
}

// ---- Packed keys (kPack; 32-bit types) ----

AT_HOST_DEVICE unsigned bits32(in_t v) { return *reinterpret_cast<const unsigned*>(&v); }

template <class T> struct SignedInt { static constexpr bool value = false; };
template <> struct SignedInt<int> { static constexpr bool value = true; };
constexpr bool kSignedInt = SignedInt<in_t>::value;

// The value's place in the order of "more extreme" as a 32-bit unsigned integer (see the top of argreduce.cu).
AT_HOST_DEVICE unsigned order(in_t v) {
  unsigned b = bits32(v);
  if constexpr (kIsFloat) {
    if (v != v) return 0xFFFFFFFFu;  // every NaN, for both operations: no number maps there
    if (v == in_t(0)) b = 0u;        // -0.0 == +0.0
    b = (b & 0x80000000u) ? ~b : (b | 0x80000000u);
  } else if constexpr (kSignedInt) {
    b ^= 0x80000000u;
  }
  return kArgMax ? b : ~b;
}

// The inverse of order() on its numbers (the zero comes back as +0.0; a NaN is not decoded: see unpack_store()).
AT_HOST_DEVICE unsigned unorder(unsigned o) {
  if constexpr (!kArgMax) o = ~o;
  if constexpr (kIsFloat) return (o & 0x80000000u) ? (o & 0x7FFFFFFFu) : ~o;
  else if constexpr (kSignedInt) return o ^ 0x80000000u;
  else return o;
}

// A candidate as a key; 0 for none. Needs p.i < 2^32 - 1 (n < 2^32).
AT_HOST_DEVICE u64 pack(Pair p) {
  if (p.i == kNone) return 0ull;
  return (static_cast<u64>(order(p.v)) << 32) | static_cast<unsigned>(~static_cast<unsigned>(p.i));
}

// The result of the greatest key `k` at `out` (as store()).
AT_HOST_DEVICE void unpack_store(unsigned char* out, u64 k, const in_t* in, u64 n) {
  const unsigned o = static_cast<unsigned>(k >> 32);
  if (n == 0 || k == 0ull || o == order(from_bits(kIdentityBits))) {
    store(out, identity(), n);  // empty, or every element the identity: index 0 (store() says why)
    return;
  }
  const u64 index = static_cast<unsigned>(~static_cast<unsigned>(k));
  unsigned bits = unorder(o);
  if constexpr (kIsFloat) {
    if (o == 0xFFFFFFFFu || bits == 0u) bits = bits32(in[index]);  // a NaN's payload, a zero's sign: as they are
  }
  *reinterpret_cast<unsigned*>(out) = bits;
  *reinterpret_cast<u64*>(out + 8) = index;
}

