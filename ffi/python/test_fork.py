"""gpusort through ctypes in processes forked from one that sorted: multiprocessing
with the fork start method, a Process and a Pool, after the parent sorted enough to start
gpusort's worker threads. The children must sort correctly; a child that hangs (waiting on the
parent's threads, which a fork does not copy) is killed at the deadline and fails the test.
Prints one line per check and ends with "N passed, M failed"; exits 1 on any failure.

Run: GPUSORT_LIB=target/debug/libgpusort.so python3 ffi/python/test_fork.py
"""

import multiprocessing
import random
import sys
import warnings
from array import array
from pathlib import Path

sys.dont_write_bytecode = True  # keep __pycache__ out of the source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))
import gpusort_ctypes as gs  # noqa: E402

DEADLINE_S = 240
N = 1_000_000

# Python 3.12+ warns that forking a multithreaded process may deadlock the child: gpusort's
# worker threads make this process one, and that situation is exactly what is under test.
warnings.filterwarnings("ignore", category=DeprecationWarning, message=".*fork.*")

passed = failed = 0


def check(ok, name):
    global passed, failed
    print(("ok   " if ok else "FAIL ") + name, flush=True)
    if ok:
        passed += 1
    else:
        failed += 1


def sort_and_check(seed):
    """Sorts N u32 keys and N split pairs (few distinct keys, so stability shows); what failed."""
    rng = random.Random(seed)
    problems = []
    keys = array("I", (rng.getrandbits(32) for _ in range(N)))
    want = sorted(keys)
    gs.sort_keys(keys)
    if keys.tolist() != want:
        problems.append(f"{N} keys not sorted")
    pair_keys = array("I", (rng.randrange(1000) for _ in range(N)))
    values = array("I", range(N))
    want = sorted(zip(pair_keys, values), key=lambda p: p[0])  # stable
    gs.sort_pairs(pair_keys, values, sorter=gs.Sorter(gs.BACKEND_CPU))
    if list(zip(pair_keys, values)) != want:
        problems.append(f"{N} split pairs not sorted stably")
    return problems


def child_main(seed, results):
    results.put((seed, sort_and_check(seed), gs.describe()))


def main():
    # The parent sorts first: 1.5M keys start gpusort's worker threads.
    keys = array("I", range(1_500_000, 0, -1))
    gs.sort_keys(keys)
    check(keys.tolist() == list(range(1, 1_500_001)), "parent: 1.5M keys sorted before forking")

    ctx = multiprocessing.get_context("fork")
    results = ctx.Queue()
    child = ctx.Process(target=child_main, args=(1, results))
    child.start()
    child.join(DEADLINE_S)
    hung = child.is_alive()
    if hung:
        child.kill()
        child.join()
    outcome = None if hung or child.exitcode != 0 else results.get(timeout=10)
    check(outcome is not None and outcome[1] == [],
          f"Process (fork): {N} keys and {N} split pairs sorted"
          + (" -- hung, killed" if hung else f", exit code {child.exitcode}, problems {outcome and outcome[1]}"))
    if outcome:
        print("  child's backend:", outcome[2])

    with ctx.Pool(2) as pool:
        pending = pool.map_async(sort_and_check, [2, 3])
        try:
            problems = pending.get(timeout=DEADLINE_S)
            check(problems == [[], []], f"Pool(2) (fork): two workers sorted correctly {problems}")
        except multiprocessing.TimeoutError:
            check(False, "Pool(2) (fork): the workers hung")
            pool.terminate()

    # The parent is unaffected by its children.
    check(sort_and_check(4) == [], "parent: sorts again after its children")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
