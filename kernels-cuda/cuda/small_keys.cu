// Device-resident 8- and 16-bit keys (integers, f16, bf16) as the radix sorts take them: their
// 32-bit ordered bits, made before the sort and mapped back into the caller's keys after it
// (src/cuda/small_keys.rs). The high bytes of the bits are zero, so the sort's plan skips their
// digit passes.
//   small_widen_<w>:  bits[i] = ordered(keys[i])
//   small_narrow_<w>: keys[i] = inverse(bits[i])
// `map`: 0 unsigned, 1 signed (the sign bit flipped), 2 float (a negative key has every bit
// flipped, another only its sign bit: IEEE total order).

__device__ __forceinline__ unsigned long long grid_thread() {
    return (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ unsigned long long grid_stride() { return (unsigned long long)gridDim.x * blockDim.x; }

template <int BITS> __device__ __forceinline__ unsigned ordered(unsigned raw, int map) {
    constexpr unsigned SIGN = 1u << (BITS - 1), MASK = (1u << BITS) - 1;
    if (map == 1) return raw ^ SIGN;
    if (map == 2) return (raw & SIGN) ? (~raw & MASK) : (raw | SIGN);
    return raw;
}

// The inverse of `ordered`: a set top bit marks a float that was not negative.
template <int BITS> __device__ __forceinline__ unsigned raw_of(unsigned bits, int map) {
    constexpr unsigned SIGN = 1u << (BITS - 1), MASK = (1u << BITS) - 1;
    bits &= MASK;
    if (map == 1) return bits ^ SIGN;
    if (map == 2) return (bits & SIGN) ? (bits ^ SIGN) : (~bits & MASK);
    return bits;
}

// Four keys a thread and step where both buffers allow vector accesses, else one.
template <class T, class V> __device__ void widen(const T *keys, unsigned *bits, unsigned long long n, int map) {
    constexpr int BITS = 8 * sizeof(T);
    const unsigned long long stride = grid_stride();
    unsigned long long done = 0;
    if ((((size_t)keys & (sizeof(V) - 1)) | ((size_t)bits & 15)) == 0) {
        const unsigned long long quads = n / 4;
        for (unsigned long long q = grid_thread(); q < quads; q += stride) {
            const V k = reinterpret_cast<const V *>(keys)[q];
            reinterpret_cast<uint4 *>(bits)[q] = make_uint4(ordered<BITS>(k.x, map), ordered<BITS>(k.y, map),
                                                            ordered<BITS>(k.z, map), ordered<BITS>(k.w, map));
        }
        done = quads * 4;
    }
    for (unsigned long long i = done + grid_thread(); i < n; i += stride) bits[i] = ordered<BITS>(keys[i], map);
}

template <class T, class V> __device__ void narrow(const unsigned *bits, T *keys, unsigned long long n, int map) {
    constexpr int BITS = 8 * sizeof(T);
    const unsigned long long stride = grid_stride();
    unsigned long long done = 0;
    if ((((size_t)keys & (sizeof(V) - 1)) | ((size_t)bits & 15)) == 0) {
        const unsigned long long quads = n / 4;
        for (unsigned long long q = grid_thread(); q < quads; q += stride) {
            const uint4 b = reinterpret_cast<const uint4 *>(bits)[q];
            V k;
            k.x = (T)raw_of<BITS>(b.x, map);
            k.y = (T)raw_of<BITS>(b.y, map);
            k.z = (T)raw_of<BITS>(b.z, map);
            k.w = (T)raw_of<BITS>(b.w, map);
            reinterpret_cast<V *>(keys)[q] = k;
        }
        done = quads * 4;
    }
    for (unsigned long long i = done + grid_thread(); i < n; i += stride) keys[i] = (T)raw_of<BITS>(bits[i], map);
}

extern "C" __global__ void __launch_bounds__(256)
    small_widen_16(const unsigned short *keys, unsigned *bits, unsigned long long n, int map) {
    widen<unsigned short, ushort4>(keys, bits, n, map);
}

extern "C" __global__ void __launch_bounds__(256)
    small_narrow_16(const unsigned *bits, unsigned short *keys, unsigned long long n, int map) {
    narrow<unsigned short, ushort4>(bits, keys, n, map);
}

extern "C" __global__ void __launch_bounds__(256)
    small_widen_8(const unsigned char *keys, unsigned *bits, unsigned long long n, int map) {
    widen<unsigned char, uchar4>(keys, bits, n, map);
}

extern "C" __global__ void __launch_bounds__(256)
    small_narrow_8(const unsigned *bits, unsigned char *keys, unsigned long long n, int map) {
    narrow<unsigned char, uchar4>(bits, keys, n, map);
}
