// TEMPORARY SHIM, to be deleted when the rewritten radix_onesweep.cuh and radix_rank.cuh are
// merged: the global switches those two files still test, at the values the images are built with.
#pragma once

#define RADIX_RANK 3            // warps find a digit's lanes by shared atomic OR
#define RADIX_EARLY_COUNTS 1    // warps count their digits before ranking
#define RADIX_GROUPED_INLINE 0  // grouped warps rank in a loop of their own
#define RADIX_KEYS_FIRST 0      // Kvp items are ranked and staged from one load
#define RADIX_SHARED_ONCE 1     // one shared-memory variable per sweep kernel
#define RADIX_VALUES_LATE 2     // split values load after the ranking
