// The radix words of a lexsort (src/cuda/lexsort.rs): each row's sort-key columns packed into
// 32-bit words, the columns read through the permutation of the passes so far. One launch packs up
// to two fields of a word; words of more fields OR the rest in (`accumulate`).
//
// A field's spec (src/cuda/columns.rs builds it; src/columns.rs `Field::bits` is the CPU twin):
//   bits 0-7   the key type, as KeyType::ALL numbers it
//   bits 8-15  the shift of the field in the word
//   bit 16     descending
//   bit 17     the column has nulls (a flag bit above the value bits)
//   bit 18     nulls last
//   bits 19-20 NaN placement: 0 by bits (total order), 1 last, 2 first (-0.0 then equals +0.0)
//   bits 21-27 lo, bits 28-34 len: the field holds bits lo..lo+len of the column's bits, the
//              key's ordered bits with the null flag above them (65 for a 64-bit column with
//              nulls); a column wider than what its word has left is split over two words

typedef unsigned long long u64;

enum KeyKind { U32, I32, F32, U64, I64, F64, U16, I16, U8, I8, F16, BF16 };

__device__ __forceinline__ unsigned width_of(unsigned kind) {
    switch (kind) {
    case U32: case I32: case F32: return 32;
    case U64: case I64: case F64: return 64;
    case U16: case I16: case F16: case BF16: return 16;
    default: return 8;
    }
}

__device__ __forceinline__ u64 load_raw(const void *keys, unsigned kind, u64 row) {
    switch (width_of(kind)) {
    case 32: return static_cast<const unsigned *>(keys)[row];
    case 64: return static_cast<const u64 *>(keys)[row];
    case 16: return static_cast<const unsigned short *>(keys)[row];
    default: return static_cast<const unsigned char *>(keys)[row];
    }
}

// The field's bits for one row, shifted into place: the key's ordered bits (sign flipped for
// signed keys, IEEE total order for floats), reversed when descending, NaN and nulls placed.
__device__ __forceinline__ u64 field_bits(u64 raw, bool null, u64 spec) {
    const unsigned kind = spec & 0xff, shift = (spec >> 8) & 0xff, width = width_of(kind);
    const u64 sign = 1ull << (width - 1);
    const u64 mask = width == 64 ? ~0ull : (1ull << width) - 1;
    const bool is_float = kind == F32 || kind == F64 || kind == F16 || kind == BF16;
    const bool is_signed = kind == I32 || kind == I64 || kind == I16 || kind == I8;
    const unsigned nan_at = (spec >> 19) & 3, lo = (spec >> 21) & 0x7f, len = (spec >> 28) & 0x7f;
    const bool nullable = (spec >> 17) & 1;
    const u64 last = (spec >> 18) & 1;
    null = null && nullable;
    u64 v = raw;
    if (is_signed) v = raw ^ sign;
    else if (is_float) v = (raw & sign) ? (~raw & mask) : (raw | sign);
    bool nan = false;
    if (is_float && nan_at != 0) {
        const u64 inf = kind == F16    ? 0x7c00ull
                        : kind == BF16 ? 0x7f80ull
                        : kind == F32  ? 0x7f800000ull
                                       : 0x7ff0000000000000ull;
        nan = (raw & (sign - 1)) > inf;
        if (v == sign - 1) v = sign;  // -0.0 sorts as +0.0
    }
    if ((spec >> 16) & 1) v = ~v & mask;
    if (nan) v = nan_at == 1 ? mask : 0;
    // Nulls carry no value bits: all of them tie, and keep their input order.
    if (null) v = 0;
    u64 bits = lo < width ? v >> lo : 0;
    // The flag is bit `width` of the column's bits; lo + len <= 65, so the shift is below 64.
    if (nullable && lo + len > width) bits |= (null ? last : last ^ 1) << (width - lo);
    if (len < 64) bits &= (1ull << len) - 1;
    return bits << shift;
}

__device__ __forceinline__ void pack(unsigned *word, const unsigned *perm, u64 n, const void *a, const unsigned char *a_nulls,
                                     u64 a_spec, const void *b, const unsigned char *b_nulls, u64 b_spec,
                                     unsigned accumulate) {
    const u64 stride = (u64)gridDim.x * blockDim.x;
    const unsigned a_kind = a_spec & 0xff, b_kind = b_spec & 0xff;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const u64 row = perm ? perm[i] : i;
        u64 w = accumulate ? word[i] : 0;
        w |= field_bits(load_raw(a, a_kind, row), a_nulls && a_nulls[row], a_spec);
        if (b) w |= field_bits(load_raw(b, b_kind, row), b_nulls && b_nulls[row], b_spec);
        word[i] = (unsigned)w;
    }
}

extern "C" __global__ void __launch_bounds__(256)
    columns_pack_u32(unsigned *word, const unsigned *perm, u64 n, const void *a, const unsigned char *a_nulls, u64 a_spec,
                     const void *b, const unsigned char *b_nulls, u64 b_spec, unsigned accumulate) {
    pack(word, perm, n, a, a_nulls, a_spec, b, b_nulls, b_spec, accumulate);
}
