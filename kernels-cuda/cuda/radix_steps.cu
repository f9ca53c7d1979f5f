// Test-only image: the sweep agent (radix_onesweep.cuh) with each ranking and look-back variant
// the sort descriptions choose, on Kvp items in small tiles (so a few thousand items span many
// tiles and look-back batches). Each radix_onesweep_steps_<name> takes radix.cu's
// radix_onesweep_<name> arguments; the histogram, plan and copy back come from the radix image.
// src/cuda/radix/steps.rs runs them, tests/gpu_radix_steps.rs checks them.
#include "radix.cuh"

namespace radix {

// The tile shape of every kernel here: radix_steps_shape = {threads, items}.
constexpr int STEPS_THREADS = 256, STEPS_ITEMS = 4;

template <bool LEADER, int GROUPED, int BATCH, bool LATE, bool STAGED, bool REREAD, bool FULL>
struct Steps : Tuned<SortKvp, policy::Set::Kvp> {
    static constexpr bool RANK_LEADER_ADD = LEADER;
    static constexpr int GROUPED_MAX = GROUPED;
    static constexpr int LOOKBACK_BATCH = BATCH;
    static constexpr bool LOOKBACK_LATE = LATE;
    static constexpr bool STAGE_IN_RANK = STAGED;
    static constexpr bool COUNTS_REREAD = REREAD;
    static constexpr bool FULL_TILE = FULL;
    static constexpr bool FULL_PATH = FULL;
};

}  // namespace radix

extern "C" __device__ unsigned radix_steps_shape[2] = {radix::STEPS_THREADS, radix::STEPS_ITEMS};

#define RADIX_STEPS_SWEEP(NAME, ...)                                                                                  \
    extern "C" __global__ void __launch_bounds__(radix::STEPS_THREADS) radix_onesweep_steps_##NAME(                   \
        const unsigned *plan, int pass, int order, radix::KvpItem *keys_a, radix::KvpItem *keys_b,                    \
        radix::NoValue *values_a, radix::NoValue *values_b, unsigned long long portion_begin, unsigned portion_len,   \
        unsigned *status, unsigned *status_next, unsigned long long status_words, unsigned *tile_counter,             \
        const unsigned long long *base_in, unsigned long long *base_out) {                                            \
        wait_for_previous_grid();                                                                                      \
        radix::onesweep<radix::Steps<__VA_ARGS__>, false, radix::STEPS_THREADS, radix::STEPS_ITEMS>(                  \
            plan, pass, order, keys_a, keys_b, values_a, values_b,                                                     \
            radix::PortionTiles{portion_begin, portion_len, base_in, base_out}, status, status_next, status_words,     \
            tile_counter);                                                                                             \
    }

// leader add, grouped max, look-back batch, late look-back, staged in rank, counts reread, full tiles
RADIX_STEPS_SWEEP(or_b4, false, 0, 4, false, false, false, false)
RADIX_STEPS_SWEEP(or_leader_b8_late, true, 0, 8, true, false, true, true)
RADIX_STEPS_SWEEP(grouped_leader_b8_late, true, 32, 8, true, false, true, true)
RADIX_STEPS_SWEEP(grouped_b4, false, 32, 4, false, false, false, false)
RADIX_STEPS_SWEEP(staged_grouped_b4, false, 32, 4, false, true, false, true)
RADIX_STEPS_SWEEP(staged_leader_b8_late, true, 0, 8, true, true, true, false)
