// The radix words of a lexsort (src/cuda/lexsort.rs): each row's sort-key columns (numbers, or
// fixed-width byte strings in memcmp order) packed into words of 8, 16 or 32 bits (64 for a
// probe), the columns read through the permutation of the passes so far. One launch packs up to
// two fields of a word; words of more fields OR the rest in (`accumulate`).
//
// A field's spec (src/cuda/columns.rs builds it; src/columns.rs `Field::bits` is the CPU twin):
//   bits 0-7   the key type, as KeyType::ALL numbers it, or BYTES (a byte-string column)
//   bits 8-15  the shift of the field in the word
//   bit 16     descending
//   bit 17     the column has nulls (a flag bit above the value bits)
//   bit 18     nulls last
//   bits 19-20 NaN placement: 0 by bits (total order), 1 last, 2 first (-0.0 then equals +0.0)
//   bits 21-36 lo, bits 37-43 len: the field holds bits lo..lo+len of the column's bits, the
//              key's ordered bits with the null flag above them (65 for a 64-bit column with
//              nulls); a column wider than what its word has left is split over several words
//   bits 44-56 a byte-string key's width in bytes; its ordered bits are the bytes read as one
//              big-endian integer

typedef unsigned long long u64;

enum KeyKind { U32, I32, F32, U64, I64, F64, U16, I16, U8, I8, F16, BF16, BYTES };

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
    const unsigned nan_at = (spec >> 19) & 3, lo = (spec >> 21) & 0xffff, len = (spec >> 37) & 0x7f;
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

// `field_bits` of a byte-string column: bits lo..lo+len (len <= 32) of row `row`'s key, inverted
// when descending, the null flag above the key's bits.
__device__ __forceinline__ u64 byte_field_bits(const unsigned char *keys, u64 row, bool null, u64 spec) {
    const unsigned shift = (spec >> 8) & 0xff, lo = (spec >> 21) & 0xffff, len = (spec >> 37) & 0x7f;
    const unsigned bytes = (spec >> 44) & 0x1fff, width = 8 * bytes;
    const bool nullable = (spec >> 17) & 1;
    const u64 last = (spec >> 18) & 1;
    null = null && nullable;
    u64 bits = 0;
    if (lo < width && !null) {
        const unsigned top = min(lo + len, width);
        // Byte 0 of a key holds its top 8 bits; at most 5 bytes cover 32 bits at any offset.
        const unsigned char *key = keys + row * bytes;
        for (unsigned b = bytes - 1 - (top - 1) / 8; b <= bytes - 1 - lo / 8; ++b) bits = bits << 8 | key[b];
        const u64 mask = (1ull << (top - lo)) - 1;
        bits = (bits >> (lo % 8)) & mask;
        if ((spec >> 16) & 1) bits = ~bits & mask;
    }
    if (nullable && lo + len > width) bits |= (null ? last : last ^ 1) << (width - lo);
    return bits << shift;
}

template <bool BYTE_COLUMNS>
__device__ __forceinline__ u64 column_bits(const void *keys, unsigned kind, u64 row, bool null, u64 spec) {
    if (BYTE_COLUMNS && kind == BYTES) return byte_field_bits(static_cast<const unsigned char *>(keys), row, null, spec);
    return field_bits(load_raw(keys, kind, row), null, spec);
}

// One launch packs up to two fields of a word of type W (words of 8, 16 or 32 bits for the passes,
// as few as hold the word's fields, 64-bit for a probe's two top words); BYTE_COLUMNS instantiations also read byte-string columns, the others
// keep the number path alone. `gate`, when given, is the probe's verdict (`columns_ties`): 0
// means the top words already ordered every row, so the word is written as zeros (a pass the
// radix sort skips) without reading the columns.
template <typename W, bool BYTE_COLUMNS>
__device__ __forceinline__ void pack(W *word, const unsigned *perm, u64 n, const void *a, const unsigned char *a_nulls,
                                     u64 a_spec, const void *b, const unsigned char *b_nulls, u64 b_spec,
                                     unsigned accumulate, const unsigned *gate) {
    const u64 stride = (u64)gridDim.x * blockDim.x;
    if (gate && *gate == 0) {
        for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) word[i] = 0;
        return;
    }
    const unsigned a_kind = a_spec & 0xff, b_kind = b_spec & 0xff;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const u64 row = perm ? perm[i] : i;
        u64 w = accumulate ? word[i] : 0;
        w |= column_bits<BYTE_COLUMNS>(a, a_kind, row, a_nulls && a_nulls[row], a_spec);
        if (b) w |= column_bits<BYTE_COLUMNS>(b, b_kind, row, b_nulls && b_nulls[row], b_spec);
        word[i] = (W)w;
    }
}

#define COLUMNS_PACK(name, W, BYTE_COLUMNS)                                                                      \
    extern "C" __global__ void __launch_bounds__(256)                                                            \
        name(W *word, const unsigned *perm, u64 n, const void *a, const unsigned char *a_nulls, u64 a_spec,      \
             const void *b, const unsigned char *b_nulls, u64 b_spec, unsigned accumulate, const unsigned *gate) { \
        pack<W, BYTE_COLUMNS>(word, perm, n, a, a_nulls, a_spec, b, b_nulls, b_spec, accumulate, gate);          \
    }
COLUMNS_PACK(columns_pack_u8, unsigned char, false)
COLUMNS_PACK(columns_pack_bytes_u8, unsigned char, true)
COLUMNS_PACK(columns_pack_u16, unsigned short, false)
COLUMNS_PACK(columns_pack_bytes_u16, unsigned short, true)
COLUMNS_PACK(columns_pack_u32, unsigned, false)
COLUMNS_PACK(columns_pack_bytes_u32, unsigned, true)
COLUMNS_PACK(columns_pack_u64, u64, false)
COLUMNS_PACK(columns_pack_bytes_u64, u64, true)

// The probe of a lexsort of many words: `top` holds the rows' top two words (one 64-bit key) in
// sorted order; `*ties` (zeroed by the caller) becomes 1 when two neighbours are equal, so that
// the lower words still matter.
extern "C" __global__ void __launch_bounds__(256) columns_ties(const u64 *top, u64 n, unsigned *ties) {
    const u64 stride = (u64)gridDim.x * blockDim.x;
    bool found = false;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x + 1; i < n; i += stride) found |= top[i] == top[i - 1];
    if (__syncthreads_or(found) && threadIdx.x == 0) *ties = 1;
}
