// P/Invoke bindings for libgpusort (gpusort.so / gpusort.dll), mirroring ffi/include/gpusort.h.
// Blittable arrays (uint[], int[], float[], ulong[], Kvp[]) are pinned, not copied, for the call,
// so the library sorts the managed array in place.
using System;
using System.Runtime.InteropServices;
using System.Text;

namespace GpuSortInterop
{
    public enum Status : int
    {
        Ok = 0, InvalidArgument = 1, NoDriver = 2, NoDevice = 3, OutOfMemory = 4, Unsupported = 5,
        DriverError = 6, KernelImage = 7, BufferTooSmall = 8, Panic = 9, InternalError = 10, IoError = 11, Cancelled = 12,
    }

    public enum Order : uint { Ascending = 0, Descending = 1 }

    public enum Algorithm : uint { Auto = 0, Radix = 1, Bitonic = 2, OddEvenMerge = 3 }

    public enum Backend : uint { Auto = 0, Cpu = 1, Cuda = 2 }

    /// gpusort_kvp: a 32-bit key and its 32-bit value, 8 bytes, key first.
    [StructLayout(LayoutKind.Sequential)]
    public struct Kvp
    {
        public uint Key;
        public uint Value;
        public Kvp(uint key, uint value) { Key = key; Value = value; }
        public override string ToString() => $"({Key}, {Value})";
    }

    internal static class Native
    {
        // Resolves to libgpusort.so on Linux, gpusort.dll on Windows, libgpusort.dylib on macOS.
        private const string Lib = "gpusort";

        [DllImport(Lib)] internal static extern Status gpusort_sorter_new(Backend backend, out IntPtr sorter);
        [DllImport(Lib)] internal static extern void gpusort_sorter_free(IntPtr sorter);
        [DllImport(Lib)] internal static extern Status gpusort_describe(IntPtr sorter, byte[]? buf, nuint len, out nuint written);
        [DllImport(Lib)] internal static extern Status gpusort_last_error_message(byte[]? buf, nuint len, out nuint written);
        [DllImport(Lib)] internal static extern IntPtr gpusort_status_str(int status);
        [DllImport(Lib)] internal static extern Status gpusort_release_memory(IntPtr sorter);

        [DllImport(Lib)] internal static extern Status gpusort_sort_kvp(IntPtr s, [In, Out] Kvp[]? data, nuint len, Order order, Algorithm algorithm);
        [DllImport(Lib)] internal static extern Status gpusort_sort_keys_u32(IntPtr s, [In, Out] uint[]? keys, nuint len, Order order, Algorithm algorithm);
        [DllImport(Lib)] internal static extern Status gpusort_sort_keys_i32(IntPtr s, [In, Out] int[]? keys, nuint len, Order order, Algorithm algorithm);
        [DllImport(Lib)] internal static extern Status gpusort_sort_keys_f32(IntPtr s, [In, Out] float[]? keys, nuint len, Order order, Algorithm algorithm);
        [DllImport(Lib)] internal static extern Status gpusort_sort_keys_u64(IntPtr s, [In, Out] ulong[]? keys, nuint len, Order order, Algorithm algorithm);
        [DllImport(Lib)] internal static extern Status gpusort_sort_pairs_u32(IntPtr s, [In, Out] uint[]? keys, [In, Out] uint[]? values, nuint len, Order order, Algorithm algorithm);
        [DllImport(Lib)] internal static extern Status gpusort_sort_pairs_u64(IntPtr s, [In, Out] ulong[]? keys, [In, Out] uint[]? values, nuint len, Order order, Algorithm algorithm);
    }

    public sealed class GpuSortException : Exception
    {
        public Status Status { get; }
        public GpuSortException(Status status, string message) : base($"{status}: {message}") { Status = status; }
    }

    /// A gpusort_sorter. Thread-safe: one instance may sort on several threads at once.
    /// Methods that take a null sorter use the library's process-wide default (auto) sorter.
    public sealed class SorterHandle : SafeHandle
    {
        private SorterHandle() : base(IntPtr.Zero, true) { }
        public override bool IsInvalid => handle == IntPtr.Zero;
        protected override bool ReleaseHandle() { Native.gpusort_sorter_free(handle); return true; }

        public static SorterHandle Create(Backend backend)
        {
            GpuSort.Check(Native.gpusort_sorter_new(backend, out IntPtr raw));
            var h = new SorterHandle();
            h.SetHandle(raw);
            return h;
        }
    }

    public static class GpuSort
    {
        // A null SafeHandle cannot be marshalled, and NULL means "the default sorter": pass the raw
        // pointer, holding a reference so the handle cannot be freed during the call.
        private static Status With(SorterHandle? sorter, Func<IntPtr, Status> call)
        {
            if (sorter is null) return call(IntPtr.Zero);
            bool added = false;
            try
            {
                sorter.DangerousAddRef(ref added);
                return call(sorter.DangerousGetHandle());
            }
            finally
            {
                if (added) sorter.DangerousRelease();
            }
        }

        internal static void Check(Status status)
        {
            if (status != Status.Ok) throw new GpuSortException(status, LastErrorMessage());
        }

        /// The calling thread's message for the last failed call.
        public static string LastErrorMessage()
        {
            Native.gpusort_last_error_message(null, 0, out nuint needed);
            var buf = new byte[(int)needed + 1];
            Native.gpusort_last_error_message(buf, (nuint)buf.Length, out _);
            return Encoding.UTF8.GetString(buf, 0, (int)needed);
        }

        public static string Describe(SorterHandle? sorter = null)
        {
            nuint needed = 0;
            With(sorter, h => Native.gpusort_describe(h, null, 0, out needed));
            var buf = new byte[(int)needed + 1];
            Check(With(sorter, h => Native.gpusort_describe(h, buf, (nuint)buf.Length, out _)));
            return Encoding.UTF8.GetString(buf, 0, (int)needed);
        }

        /// Frees what the library keeps between sorts for speed (pinned staging, the GPU's memory
        /// pool, the CPU scratch), shared by every sorter of the process; the next sort allocates
        /// it again. Null: the default sorter.
        public static void ReleaseMemory(SorterHandle? sorter = null)
            => Check(With(sorter, h => Native.gpusort_release_memory(h)));

        public static string StatusString(Status s) => Marshal.PtrToStringAnsi(Native.gpusort_status_str((int)s))!;

        public static void Sort(Kvp[] data, Order order = Order.Ascending, Algorithm algorithm = Algorithm.Auto, SorterHandle? sorter = null)
            => Check(With(sorter, h => Native.gpusort_sort_kvp(h, data, (nuint)data.Length, order, algorithm)));

        public static void Sort(uint[] keys, Order order = Order.Ascending, Algorithm algorithm = Algorithm.Auto, SorterHandle? sorter = null)
            => Check(With(sorter, h => Native.gpusort_sort_keys_u32(h, keys, (nuint)keys.Length, order, algorithm)));

        public static void Sort(int[] keys, Order order = Order.Ascending, Algorithm algorithm = Algorithm.Auto, SorterHandle? sorter = null)
            => Check(With(sorter, h => Native.gpusort_sort_keys_i32(h, keys, (nuint)keys.Length, order, algorithm)));

        public static void Sort(float[] keys, Order order = Order.Ascending, Algorithm algorithm = Algorithm.Auto, SorterHandle? sorter = null)
            => Check(With(sorter, h => Native.gpusort_sort_keys_f32(h, keys, (nuint)keys.Length, order, algorithm)));

        public static void Sort(ulong[] keys, Order order = Order.Ascending, Algorithm algorithm = Algorithm.Auto, SorterHandle? sorter = null)
            => Check(With(sorter, h => Native.gpusort_sort_keys_u64(h, keys, (nuint)keys.Length, order, algorithm)));

        public static void SortPairs(uint[] keys, uint[] values, Order order = Order.Ascending, Algorithm algorithm = Algorithm.Auto, SorterHandle? sorter = null)
        {
            if (keys.Length != values.Length) throw new ArgumentException("keys and values differ in length");
            Check(With(sorter, h => Native.gpusort_sort_pairs_u32(h, keys, values, (nuint)keys.Length, order, algorithm)));
        }

        public static void SortPairs(ulong[] keys, uint[] values, Order order = Order.Ascending, Algorithm algorithm = Algorithm.Auto, SorterHandle? sorter = null)
        {
            if (keys.Length != values.Length) throw new ArgumentException("keys and values differ in length");
            Check(With(sorter, h => Native.gpusort_sort_pairs_u64(h, keys, values, (nuint)keys.Length, order, algorithm)));
        }
    }
}
