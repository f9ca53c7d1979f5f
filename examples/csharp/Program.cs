// Example: sorts pairs and keys through libgpusort, checks the results, shows an error.
// Run: see README.md in this folder (needs the .NET 8 SDK and a built libgpusort.so).
using System;
using System.Linq;
using GpuSortInterop;

var rng = new Random(3);
Console.WriteLine($"gpusort: {GpuSort.Describe()}");

// Pairs, descending, on the default sorter; stable: equal keys keep their input order.
var pairs = Enumerable.Range(0, 1_000_000).Select(i => new Kvp((uint)rng.Next(1000), (uint)i)).ToArray();
GpuSort.Sort(pairs, Order.Descending);
bool pairsOk = pairs.Zip(pairs.Skip(1)).All(p => p.First.Key > p.Second.Key
    || (p.First.Key == p.Second.Key && p.First.Value < p.Second.Value));
Console.WriteLine($"1M pairs descending, stable: {(pairsOk ? "ok" : "WRONG")}; first {pairs[0]}");

// Keys on an explicit sorter, reused across calls (and usable from several threads at once).
using (var sorter = SorterHandle.Create(Backend.Auto))
{
    var keys = Enumerable.Range(0, 1_000_000).Select(_ => (float)rng.NextDouble() * 2 - 1).ToArray();
    GpuSort.Sort(keys, sorter: sorter);
    Console.WriteLine($"1M floats ascending: {(keys.Zip(keys.Skip(1)).All(p => p.First <= p.Second) ? "ok" : "WRONG")}");

    var k = new uint[] { 5, 3, 9, 1 };
    var v = new uint[] { 0, 1, 2, 3 };
    GpuSort.SortPairs(k, v, sorter: sorter);
    Console.WriteLine($"split pairs: [{string.Join(", ", k)}] / [{string.Join(", ", v)}]");
}

// Done with big sorts for now: give the staging, device pool and CPU scratch back.
GpuSort.ReleaseMemory();

// Errors arrive as GpuSortException with the status and the library's message.
try
{
    using var cpu = SorterHandle.Create(Backend.Cpu);
    GpuSort.Sort(new uint[] { 2, 1 }, algorithm: Algorithm.Bitonic, sorter: cpu);
}
catch (GpuSortException e)
{
    Console.WriteLine($"expected error: {e.Message}");
}
