// The arg-reduction kernel's order of (value, index) pairs and its packed keys: how a candidate beats another, how
// pairs combine, how the result is stored, and the 64-bit keys of the packed path (order(v) << 32 | ~index) with their
// decoding (the semantics: the top of argreduce.cu). A fragment of argreduce.cu, which includes it inside namespace
// `at`; kernel_source() puts its text in place of the #include (preamble::variant_source). It uses only u64 and the
// preamble's constants (in_t, cmp_t, kHalf, kArgMax, kIsFloat, kIdentityBits, kEmptyBits), and on the device
// common.cuh's half_bits_to_float; its functions are AT_HOST_DEVICE (common.cuh), so that tests/cpu/test_argreduce.cpp
// compiles this very code for the host, once per type and operation, and checks it against the CPU reference on
// arrays split over emulated threads as the kernel splits them.
//
// Elements and values: an element (in_t) is what the input holds, a value (cmp_t) what the comparisons see. A half
// (kHalf 1: f16, 2: bf16) is its 16 bits (unsigned short, as in the reduction template: NVRTC compiles without
// cuda_fp16.h) and compares as its float value, which is exact; i8 and i16 compare as int (as C++ promotes them);
// every other type is its own value. A pair carries the element's bits (a NaN's payload, a zero's sign).

constexpr u64 kNone = ~0ull;          // no index: the identity's
constexpr unsigned kNoOrdinal = ~0u;  // the same for a thread's ordinals (argreduce.cu's scan)

AT_HOST_DEVICE in_t from_bits(u64 b) {
  if constexpr (sizeof(in_t) == 1) {
    const unsigned char w = static_cast<unsigned char>(b);
    return *reinterpret_cast<const in_t*>(&w);
  } else if constexpr (sizeof(in_t) == 2) {
    const unsigned short w = static_cast<unsigned short>(b);
    return *reinterpret_cast<const in_t*>(&w);
  } else if constexpr (sizeof(in_t) == 4) {
    const unsigned w = static_cast<unsigned>(b);
    return *reinterpret_cast<const in_t*>(&w);
  } else {
    return *reinterpret_cast<const in_t*>(&b);
  }
}

AT_HOST_DEVICE unsigned float_bits(float f) { return *reinterpret_cast<const unsigned*>(&f); }
AT_HOST_DEVICE float bits_float(unsigned u) { return *reinterpret_cast<const float*>(&u); }

// A half's value, exactly (NaN stays a NaN; its payload need not survive: storage_of() takes a NaN from the input).
AT_HOST_DEVICE float half_value(unsigned short h) {
#ifdef __CUDA_ARCH__
  return half_bits_to_float<kHalf>(h);  // common.cuh: cvt.f32.f16, or a bf16 as the top half of a float
#else
  // The host (the CPU tests) converts from the bits: a bf16 is the top half of a float; an f16 is rebiased (normal),
  // or man * 2^-24 (zero, subnormal), or an infinity or NaN with its mantissa.
  if (kHalf == 2) return bits_float(static_cast<unsigned>(h) << 16);
  const unsigned sign = static_cast<unsigned>(h & 0x8000u) << 16, exp = (h >> 10) & 0x1Fu, man = h & 0x3FFu;
  if (exp == 0x1Fu) return bits_float(sign | 0x7F800000u | (man << 13));
  if (exp != 0u) return bits_float(sign | ((exp + 112u) << 23) | (man << 13));
  const float magnitude = static_cast<float>(man) * 5.9604644775390625e-8f;  // 2^-24: exact
  return sign ? -magnitude : magnitude;
#endif
}

// The bits of the half whose value is `v` (not NaN): half_value()'s inverse, exact for every value it gives.
AT_HOST_DEVICE unsigned short half_bits(float v) {
  const unsigned u = float_bits(v);
  if (kHalf == 2) return static_cast<unsigned short>(u >> 16);
  const unsigned sign = (u >> 16) & 0x8000u, a = u & 0x7FFFFFFFu;
  if (a >= 0x7F800000u) return static_cast<unsigned short>(sign | 0x7C00u);                    // infinity
  if (a >= 0x38800000u) return static_cast<unsigned short>(sign | ((a - (112u << 23)) >> 13));  // normal: from 2^-14
  return static_cast<unsigned short>(sign | static_cast<unsigned>(bits_float(a) * 16777216.0f));  // k * 2^-24
}

// An element's value.
AT_HOST_DEVICE cmp_t value_of(in_t x) {
  if constexpr (kHalf != 0) return half_value(static_cast<unsigned short>(x));
  else return static_cast<cmp_t>(x);
}

// The element whose value a thread's scan kept (value_of() of in[index]): for every type but halves the value
// itself (an i8 or i16 narrowed back from int); a half's bits from its value (exact), but a NaN's from the input
// (its payload: the conversion to float need not keep it).
AT_HOST_DEVICE in_t storage_of(cmp_t v, const in_t* in, u64 index) {
  if constexpr (kHalf != 0) {
    if (v != v) return in[index];
    return static_cast<in_t>(half_bits(static_cast<float>(v)));
  } else {
    return static_cast<in_t>(v);
  }
}

// Whether value b beats value a strictly: more extreme, or NaN against a number. No fast-math: x != x holds only for
// NaN.
AT_HOST_DEVICE bool beats(cmp_t b, cmp_t a) {
  if constexpr (kIsFloat) {
    if constexpr (kArgMax) return !(b <= a) && a == a;  // b > a, or b NaN and a not
    else return !(b >= a) && a == a;
  } else {
    if constexpr (kArgMax) return b > a;
    else return b < a;
  }
}

// Equal in the order: ==, or both NaN.
AT_HOST_DEVICE bool same_value(cmp_t a, cmp_t b) {
  if constexpr (kIsFloat) return a == b || (a != a && b != b);
  else return a == b;
}

// The same of elements, by their values.
AT_HOST_DEVICE bool better(in_t b, in_t a) { return beats(value_of(b), value_of(a)); }
AT_HOST_DEVICE bool same(in_t a, in_t b) { return same_value(value_of(a), value_of(b)); }

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

// ---- Packed keys (kPack; types of up to 32 bits) ----

AT_HOST_DEVICE unsigned bits32(cmp_t v) { return *reinterpret_cast<const unsigned*>(&v); }

template <class T> struct SignedInt { static constexpr bool value = false; };
template <> struct SignedInt<int> { static constexpr bool value = true; };
constexpr bool kSignedInt = SignedInt<cmp_t>::value;  // i32, and i8 and i16 as int

// A half's infinity's bits without the sign: larger magnitude bits are NaNs.
constexpr unsigned kHalfInfBits = kHalf == 2 ? 0x7F80u : 0x7C00u;

// The element's place in the order of "more extreme" as a 32-bit unsigned integer (see the top of argreduce.cu).
// A half's from its 16 bits: sign and magnitude, the magnitude bits ascending with |value| (IEEE: subnormals and
// the infinity included), as a float's are; i8 and i16 from their int; the rest from their 32 bits.
AT_HOST_DEVICE unsigned order(in_t x) {
  if constexpr (kHalf != 0) {
    unsigned b = static_cast<unsigned short>(x);
    if ((b & 0x7FFFu) > kHalfInfBits) return 0xFFFFFFFFu;  // every NaN, for both operations: no number maps there
    if ((b & 0x7FFFu) == 0u) b = 0u;                         // -0.0 == +0.0
    b = (b & 0x8000u) ? (~b & 0xFFFFu) : (b | 0x8000u);
    return kArgMax ? b : 0xFFFFu - b;
  } else {
    const cmp_t v = value_of(x);
    unsigned b = bits32(v);
    if constexpr (kIsFloat) {
      if (v != v) return 0xFFFFFFFFu;  // every NaN, for both operations: no number maps there
      if (v == cmp_t(0)) b = 0u;       // -0.0 == +0.0
      b = (b & 0x80000000u) ? ~b : (b | 0x80000000u);
    } else if constexpr (kSignedInt) {
      b ^= 0x80000000u;
    }
    return kArgMax ? b : ~b;
  }
}

// The inverse of order() on its numbers, as the element's bits (a half's 16, an i8's or i16's int's 32; the zero
// comes back as +0.0; a NaN is not decoded: see unpack_store()).
AT_HOST_DEVICE unsigned unorder(unsigned o) {
  if constexpr (kHalf != 0) {
    if constexpr (!kArgMax) o = 0xFFFFu - o;
    return (o & 0x8000u) ? (o & 0x7FFFu) : (~o & 0xFFFFu);
  } else {
    if constexpr (!kArgMax) o = ~o;
    if constexpr (kIsFloat) return (o & 0x80000000u) ? (o & 0x7FFFFFFFu) : ~o;
    else if constexpr (kSignedInt) return o ^ 0x80000000u;
    else return o;
  }
}

// The element's place in the same order as a 64-bit unsigned integer, for the pairs' warp fold by
// __reduce_{max,min}_sync (argreduce.cu's warp_fold with kBlockReduce == warp_reduce): order() for types of up to 32
// bits; an 8-byte type's from its 64 bits as order() does from 32 (f64: sign and magnitude, every NaN on top for both
// operations, -0.0 as +0.0; i64: the sign bit flipped; u64: itself; arg-min: the complement). Equal keys are exactly
// same() values, and a greater key exactly a better() value: combine()'s order is (key descending, index ascending).
AT_HOST_DEVICE u64 order_key(in_t x) {
  if constexpr (sizeof(in_t) <= 4) {
    return order(x);
  } else {
    const cmp_t v = value_of(x);
    u64 b = *reinterpret_cast<const u64*>(&v);
    if constexpr (kIsFloat) {
      if (v != v) return ~0ull;  // every NaN, for both operations: no number maps there
      if (v == cmp_t(0)) b = 0ull;
      b = (b >> 63) ? ~b : (b | (1ull << 63));
    } else if constexpr (static_cast<cmp_t>(-1) < cmp_t(0)) {
      b ^= 1ull << 63;
    }
    return kArgMax ? b : ~b;
  }
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
  const unsigned bits = unorder(o);
  // A NaN's payload, a zero's sign: as they are in the input. Else the decoded bits (an i8's or i16's low ones).
  const in_t v = kIsFloat && (o == 0xFFFFFFFFu || bits == 0u) ? in[index] : from_bits(bits);
  *reinterpret_cast<in_t*>(out) = v;
  *reinterpret_cast<u64*>(out + 8) = index;
}

// ---- Wide keys (finish=atomic; every type): a block's winner as one 128-bit key ----

// order_key(v) in the high word, ~index in the low one: the greater key is exactly the greater pair (combine()'s
// order: the key descending, then the index ascending), for any index below 2^64 - 1; {0, 0} is no candidate (the
// identity's index kNone gives ~index = 0, and every candidate's low word is at least 1). The grid's finish keeps
// the greatest of the blocks' keys by a 128-bit compare-and-swap (argreduce.cu); one thread decodes it.
struct WideKey {
  u64 hi, lo;
};

AT_HOST_DEVICE bool wider(WideKey a, WideKey b) { return a.hi > b.hi || (a.hi == b.hi && a.lo > b.lo); }

AT_HOST_DEVICE WideKey pack_wide(Pair p) {
  if (p.i == kNone) return WideKey{0ull, 0ull};
  return WideKey{order_key(p.v), ~p.i};
}

// The inverse of order_key() on its numbers, as the element's bits (types of up to 32 bits: unorder()); a zero comes
// back as +0.0, a NaN is not decoded (unpack_wide_store() reads both from the input).
AT_HOST_DEVICE u64 unorder_key(u64 o) {
  if constexpr (sizeof(in_t) <= 4) {
    return unorder(static_cast<unsigned>(o));
  } else {
    if constexpr (!kArgMax) o = ~o;
    if constexpr (kIsFloat) return (o >> 63) ? (o & ~(1ull << 63)) : ~o;
    else if constexpr (static_cast<cmp_t>(-1) < cmp_t(0)) return o ^ (1ull << 63);
    else return o;
  }
}

// The result of the greatest wide key `k` at `out` (as store()).
AT_HOST_DEVICE void unpack_wide_store(unsigned char* out, WideKey k, const in_t* in, u64 n) {
  if (n == 0 || (k.hi == 0ull && k.lo == 0ull) || k.hi == order_key(from_bits(kIdentityBits))) {
    store(out, identity(), n);  // empty, or every element the identity: index 0 (store() says why)
    return;
  }
  const u64 index = ~k.lo;
  const u64 bits = unorder_key(k.hi);
  // A NaN's payload, a zero's sign: as they are in the input (every NaN has the greatest key, ~0 or, for types of up
  // to 32 bits, 0xFFFFFFFF). Else the decoded bits.
  const bool nan = sizeof(in_t) <= 4 ? k.hi == 0xFFFFFFFFull : k.hi == ~0ull;
  const in_t v = kIsFloat && (nan || bits == 0ull) ? in[index] : from_bits(bits);
  *reinterpret_cast<in_t*>(out) = v;
  *reinterpret_cast<u64*>(out + 8) = index;
}
