// The positions of an argsort (src/cuda/argsort.rs), made and widened on the device so that only
// the keys go up and only the positions come down:
//   positions_iota:  out[i] = i, the u32 positions the pair sort carries as its values;
//   positions_widen: out[i] = in[i] as a 64-bit index, for callers that take int64 / u64 positions.
// Both stream through memory once, four positions per thread and step, with 16-byte accesses where
// the buffers allow (device allocations are 256-byte aligned; a view into one may not be).

__device__ __forceinline__ unsigned long long grid_thread() {
    return (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ unsigned long long grid_stride() { return (unsigned long long)gridDim.x * blockDim.x; }

extern "C" __global__ void __launch_bounds__(256) positions_iota(unsigned *out, unsigned long long n) {
    const unsigned long long stride = grid_stride();
    if (((size_t)out & 15) == 0) {
        const unsigned long long quads = n / 4;
        for (unsigned long long q = grid_thread(); q < quads; q += stride) {
            const unsigned i = (unsigned)(q * 4);
            reinterpret_cast<uint4 *>(out)[q] = make_uint4(i, i + 1, i + 2, i + 3);
        }
        for (unsigned long long i = quads * 4 + grid_thread(); i < n; i += stride) out[i] = (unsigned)i;
    } else {
        for (unsigned long long i = grid_thread(); i < n; i += stride) out[i] = (unsigned)i;
    }
}

extern "C" __global__ void __launch_bounds__(256)
    positions_widen(const unsigned *in, unsigned long long *out, unsigned long long n) {
    const unsigned long long stride = grid_stride();
    if ((((size_t)in | (size_t)out) & 15) == 0) {
        const unsigned long long quads = n / 4;
        for (unsigned long long q = grid_thread(); q < quads; q += stride) {
            const uint4 p = reinterpret_cast<const uint4 *>(in)[q];
            reinterpret_cast<ulonglong2 *>(out)[2 * q] = make_ulonglong2(p.x, p.y);
            reinterpret_cast<ulonglong2 *>(out)[2 * q + 1] = make_ulonglong2(p.z, p.w);
        }
        for (unsigned long long i = quads * 4 + grid_thread(); i < n; i += stride) out[i] = in[i];
    } else {
        for (unsigned long long i = grid_thread(); i < n; i += stride) out[i] = in[i];
    }
}
