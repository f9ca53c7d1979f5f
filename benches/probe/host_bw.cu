// Host-side transfer primitives on the GPU machine, measured once to choose the host path's design.
// Build: nvcc -O3 -arch=sm_90 -Xcompiler -fopenmp -o host_bw host_bw.cu -lcuda
#include <cuda.h>
#include <cuda_runtime.h>
#include <emmintrin.h>
#include <immintrin.h>
#include <omp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x)                                                                              \
  do {                                                                                     \
    cudaError_t ck_ = (x);                                                                   \
    if (ck_ != cudaSuccess) {                                                              \
      printf("CUDA error %s at %s:%d: %s\n", cudaGetErrorString(ck_), __FILE__, __LINE__, #x); \
      exit(1);                                                                             \
    }                                                                                      \
  } while (0)

static double now() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static void fill(char* p, size_t bytes) {
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < bytes / 8; i++) ((uint64_t*)p)[i] = i * 0x9e3779b97f4a7c15ull;
}

// Copy with non-temporal 16-byte stores (both pointers 16-byte aligned, bytes a multiple of 64).
static void nt_copy(char* dst, const char* src, size_t bytes) {
  for (size_t i = 0; i < bytes; i += 64) {
    __m128i a = _mm_load_si128((const __m128i*)(src + i));
    __m128i b = _mm_load_si128((const __m128i*)(src + i + 16));
    __m128i c = _mm_load_si128((const __m128i*)(src + i + 32));
    __m128i d = _mm_load_si128((const __m128i*)(src + i + 48));
    _mm_stream_si128((__m128i*)(dst + i), a);
    _mm_stream_si128((__m128i*)(dst + i + 16), b);
    _mm_stream_si128((__m128i*)(dst + i + 32), c);
    _mm_stream_si128((__m128i*)(dst + i + 48), d);
  }
  _mm_sfence();
}

static void par_copy(char* dst, const char* src, size_t bytes, int threads, bool nt) {
  size_t piece = (bytes / threads + 4095) & ~size_t(4095);
#pragma omp parallel num_threads(threads)
  {
    int t = omp_get_thread_num();
    size_t a = std::min(bytes, t * piece), b = std::min(bytes, a + piece);
    if (b > a) {
      if (nt)
        nt_copy(dst + a, src + a, b - a);
      else
        memcpy(dst + a, src + a, b - a);
    }
  }
}

static char* huge_alloc(size_t bytes, bool huge) {
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    printf("mmap failed\n");
    exit(1);
  }
  if (huge) madvise(p, bytes, MADV_HUGEPAGE);
  return (char*)p;
}

static double gbps(size_t bytes, double ms) { return bytes / ms / 1e6; }

static double med(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char** argv) {
  const size_t MB = 1 << 20;
  size_t bytes = 512 * MB;
  int maxt = omp_get_max_threads();
  printf("threads available: %d\n", maxt);
  CK(cudaSetDevice(0));
  CK(cudaFree(0));
  int pma = 0, pmaHost = 0, hostReg = 0, conc = 0;
  cudaDeviceGetAttribute(&pma, cudaDevAttrPageableMemoryAccess, 0);
  cudaDeviceGetAttribute(&pmaHost, cudaDevAttrPageableMemoryAccessUsesHostPageTables, 0);
  cudaDeviceGetAttribute(&hostReg, cudaDevAttrHostRegisterSupported, 0);
  cudaDeviceGetAttribute(&conc, cudaDevAttrConcurrentManagedAccess, 0);
  printf("pageableMemoryAccess %d usesHostPageTables %d hostRegister %d concurrentManaged %d\n", pma, pmaHost,
         hostReg, conc);

  char* dev;
  CK(cudaMalloc(&dev, 2 * bytes));
  char *pin1, *pin2;
  double t0 = now();
  CK(cudaHostAlloc(&pin1, bytes, 0));
  double t_alloc = now() - t0;
  t0 = now();
  memset(pin1, 1, bytes);
  double t_touch = now() - t0;
  CK(cudaHostAlloc(&pin2, bytes, 0));
  memset(pin2, 1, bytes);
  printf("cudaHostAlloc 512MB: %.1f ms, first touch %.1f ms\n", t_alloc, t_touch);
  {
    char* big;
    t0 = now();
    CK(cudaHostAlloc(&big, 4 * bytes, 0));
    printf("cudaHostAlloc 2GB: %.1f ms\n", now() - t0);
    t0 = now();
    CK(cudaFreeHost(big));
    printf("cudaFreeHost 2GB: %.1f ms\n", now() - t0);
  }
  cudaStream_t s1, s2;
  CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));

  // Pinned DMA, one direction and both at once.
  for (int rep = 0; rep < 2; rep++) {
    std::vector<double> up, down, both;
    for (int i = 0; i < 5; i++) {
      t0 = now();
      CK(cudaMemcpyAsync(dev, pin1, bytes, cudaMemcpyHostToDevice, s1));
      CK(cudaStreamSynchronize(s1));
      up.push_back(now() - t0);
      t0 = now();
      CK(cudaMemcpyAsync(pin1, dev, bytes, cudaMemcpyDeviceToHost, s1));
      CK(cudaStreamSynchronize(s1));
      down.push_back(now() - t0);
      t0 = now();
      CK(cudaMemcpyAsync(dev, pin1, bytes, cudaMemcpyHostToDevice, s1));
      CK(cudaMemcpyAsync(pin2, dev + bytes, bytes, cudaMemcpyDeviceToHost, s2));
      CK(cudaStreamSynchronize(s1));
      CK(cudaStreamSynchronize(s2));
      both.push_back(now() - t0);
    }
    if (rep)
      printf("pinned 512MB: up %.2f ms (%.1f GB/s), down %.2f ms (%.1f GB/s), both at once %.2f ms (%.1f GB/s each way)\n",
             med(up), gbps(bytes, med(up)), med(down), gbps(bytes, med(down)), med(both),
             gbps(bytes, med(both)));
  }

  // Pageable source, faulted in.
  char* src = huge_alloc(bytes, false);
  fill(src, bytes);
  char* srch = huge_alloc(bytes, true);
  fill(srch, bytes);
  {
    std::vector<double> up, down;
    for (int i = 0; i < 3; i++) {
      t0 = now();
      CK(cudaMemcpy(dev, src, bytes, cudaMemcpyHostToDevice));
      up.push_back(now() - t0);
      t0 = now();
      CK(cudaMemcpy(src, dev, bytes, cudaMemcpyDeviceToHost));
      down.push_back(now() - t0);
    }
    printf("pageable cudaMemcpy 512MB: up %.2f ms, down %.2f ms\n", med(up), med(down));
  }


  // v2: small rings in L3 with ordinary stores, with and without a backup copy of the input.
  char* backup = huge_alloc(bytes, true);
  fill(backup, bytes);
  char* ring;
  CK(cudaHostAlloc(&ring, 256 * MB, 0));
  memset(ring, 0, 256 * MB);
  std::vector<cudaEvent_t> ev(16);
  for (auto& e : ev) CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  auto upload = [&](size_t chunk, int slots, int mode) {  // mode 0 memcpy, 1 NT, 2 memcpy + NT backup
    for (size_t off = 0, i = 0; off < bytes; off += chunk, i++) {
      int s = i % slots;
      if (i >= (size_t)slots) CK(cudaEventSynchronize(ev[s]));
      char* slot = ring + s * chunk;
      if (mode == 2) {
        size_t piece = chunk / maxt;
#pragma omp parallel num_threads(maxt)
        {
          int t = omp_get_thread_num();
          memcpy(slot + t * piece, src + off + t * piece, piece);
          nt_copy(backup + off + t * piece, slot + t * piece, piece);
        }
      } else {
        par_copy(slot, src + off, chunk, maxt, mode == 1);
      }
      CK(cudaMemcpyAsync(dev + off, slot, chunk, cudaMemcpyHostToDevice, s1));
      CK(cudaEventRecord(ev[s], s1));
    }
    CK(cudaStreamSynchronize(s1));
  };
  auto download = [&](size_t chunk, int slots, bool nt) {
    size_t chunks = bytes / chunk;
    for (size_t i = 0; i < (size_t)slots && i < chunks; i++) {
      CK(cudaMemcpyAsync(ring + i * chunk, dev + i * chunk, chunk, cudaMemcpyDeviceToHost, s1));
      CK(cudaEventRecord(ev[i], s1));
    }
    for (size_t i = 0; i < chunks; i++) {
      int s = i % slots;
      CK(cudaEventSynchronize(ev[s]));
      par_copy(src + i * chunk, ring + s * chunk, chunk, maxt, nt);
      if (i + slots < chunks) {
        CK(cudaMemcpyAsync(ring + s * chunk, dev + (i + slots) * chunk, chunk, cudaMemcpyDeviceToHost, s1));
        CK(cudaEventRecord(ev[s], s1));
      }
    }
  };
  struct Cfg { size_t chunk; int slots; };
  for (Cfg c : {Cfg{2 * MB, 8}, Cfg{4 * MB, 4}, Cfg{4 * MB, 8}, Cfg{8 * MB, 4}, Cfg{8 * MB, 8}, Cfg{16 * MB, 4}}) {
    for (int mode = 0; mode < 3; mode++) {
      std::vector<double> up;
      for (int rep = 0; rep < 5; rep++) {
        t0 = now();
        upload(c.chunk, c.slots, mode);
        up.push_back(now() - t0);
      }
      printf("upload ring %2zuMB x%d %s: %.2f ms (%.1f GB/s)\n", c.chunk / MB, c.slots,
             mode == 0 ? "memcpy       " : mode == 1 ? "NT           " : "memcpy+backup", med(up),
             gbps(bytes, med(up)));
    }
    for (int nt = 0; nt < 2; nt++) {
      std::vector<double> down;
      for (int rep = 0; rep < 5; rep++) {
        t0 = now();
        download(c.chunk, c.slots, nt);
        down.push_back(now() - t0);
      }
      printf("download ring %2zuMB x%d %s: %.2f ms (%.1f GB/s)\n", c.chunk / MB, c.slots, nt ? "NT    " : "memcpy",
             med(down), gbps(bytes, med(down)));
    }
  }
  // Up and down at once (out of core: run i+1 goes up while run i comes back), two rings.
  {
    size_t chunk = 8 * MB;
    int slots = 4;
    char* ring2 = ring + 128 * MB;
    char* src2 = backup;
    std::vector<cudaEvent_t> ev2(slots);
    for (auto& e : ev2) CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    std::vector<double> both;
    for (int rep = 0; rep < 5; rep++) {
      t0 = now();
      size_t chunks = bytes / chunk;
      for (size_t i = 0; i < chunks; i++) {
        int s = i % slots;
        if (i >= (size_t)slots) {
          CK(cudaEventSynchronize(ev[s]));
          CK(cudaEventSynchronize(ev2[s]));
          par_copy(src2 + (i - slots) * chunk, ring2 + s * chunk, chunk, maxt, true);
        }
        par_copy(ring + s * chunk, src + i * chunk, chunk, maxt, false);
        CK(cudaMemcpyAsync(dev + i * chunk, ring + s * chunk, chunk, cudaMemcpyHostToDevice, s1));
        CK(cudaEventRecord(ev[s], s1));
        CK(cudaMemcpyAsync(ring2 + s * chunk, dev + bytes + i * chunk, chunk, cudaMemcpyDeviceToHost, s2));
        CK(cudaEventRecord(ev2[s], s2));
      }
      CK(cudaDeviceSynchronize());
      for (size_t i = chunks - slots; i < chunks; i++)
        par_copy(src2 + i * chunk, ring2 + (i % slots) * chunk, chunk, maxt, true);
      both.push_back(now() - t0);
    }
    printf("both ways at once, 8MB x4 rings: %.2f ms for 512MB each way (%.1f GB/s each way)\n", med(both),
           gbps(bytes, med(both)));
  }
  // Registration on all threads at once.
  {
    size_t piece = bytes / maxt;
    std::vector<double> reg, unreg;
    for (int rep = 0; rep < 3; rep++) {
      t0 = now();
#pragma omp parallel num_threads(maxt)
      { cudaHostRegister(src + omp_get_thread_num() * piece, piece, cudaHostRegisterReadOnly); }
      reg.push_back(now() - t0);
      t0 = now();
#pragma omp parallel num_threads(maxt)
      { cudaHostUnregister(src + omp_get_thread_num() * piece); }
      unreg.push_back(now() - t0);
    }
    printf("register 512MB on %d threads (read-only): %.1f ms, unregister %.1f ms\n", maxt, med(reg), med(unreg));
  }
  if (pma) {
    // The GPU reading pageable memory directly (HMM / ATS).
    printf("pageable memory access is on: not timed here\n");
  }
  printf("done\n");
  return 0;
}
