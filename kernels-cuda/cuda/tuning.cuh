// Kernel tuning numbers, one block per algorithm, chosen per architecture at compile time
// (__CUDA_ARCH__). Each number carries the measurement that chose it: GPU, size, time.
#pragma once

// ---- radix sort (radix*.cu) -------------------------------------------------------------

// ---- sorting networks (network*.cu) -----------------------------------------------------
