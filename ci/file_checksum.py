"""An order-independent checksum of a file of fixed-size records, written apart from gpusort's
own (`gpusort check`): the wrapping sum of a 64-bit hash of each record, so a file and any
permutation of its records agree, and a lost, duplicated or changed record shows.

    python3 ci/file_checksum.py FILE RECORD_SIZE
"""

import sys

import numpy as np

MULT = np.uint64(0xFF51AFD7ED558CCD)
CHUNK_RECORDS = 1 << 22


def record_hashes(rows: np.ndarray) -> np.ndarray:
    """One hash per row of a (n, size) uint8 array: bytes folded in four at a time."""
    n, size = rows.shape
    padded = np.zeros((n, (size + 3) // 4 * 4), dtype=np.uint8)
    padded[:, :size] = rows
    words = padded.view("<u4").astype(np.uint64)
    h = np.full(n, np.uint64(size), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(words.shape[1]):
            h = (h ^ words[:, j]) * MULT
            h ^= h >> np.uint64(31)
    return h


def checksum(path: str, size: int) -> int:
    total = np.uint64(0)
    with open(path, "rb") as f:
        while True:
            block = f.read(CHUNK_RECORDS * size)
            if not block:
                break
            if len(block) % size:
                raise SystemExit(f"{path}: not a whole number of {size}-byte records")
            rows = np.frombuffer(block, dtype=np.uint8).reshape(-1, size)
            with np.errstate(over="ignore"):
                total = total + record_hashes(rows).sum(dtype=np.uint64)
    return int(total)


if __name__ == "__main__":
    print(f"{checksum(sys.argv[1], int(sys.argv[2])):016x}")
