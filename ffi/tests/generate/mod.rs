//! Renders the C ABI's per-key-type sources from the key list (`gpusort_core::KeyType::ALL`): the
//! `GPUSORT_KEY_*` values and one file of forwarders per family, each family's template once in
//! [`FAMILIES`]. The files are committed, as cbindgen reads sources, not macro expansions.
//!
//! A new key type in the list gets a member of every family and a `GPUSORT_KEY_*` value from the
//! next blessing. A new family is an entry of `FAMILIES`, its generic function in the `mod.rs` of
//! its directory, and there `mod <file>;` and `pub use <file>::*;`.

use gpusort_core::KeyType;

/// What every generated file says after what it holds.
const GENERATED: &str = "Generated from the key list by `ffi/tests/generate`: edit the template there, then \
                         `GPUSORT_BLESS=1 cargo test -p gpusort-ffi --test header` rewrites this file.";

/// The width doc comments are wrapped to, `///` included.
const DOC_WIDTH: usize = 100;

/// One family of per-key-type entry points, `<stem><t><suffix>` for every key type `t`.
///
/// In the texts, `{c}` is the C key type, `{t}` the Rust one (`u32`: the end of the name), `{float}`
/// the family's float note for floating-point keys (nothing for others) and `{wide}` its note for
/// 64-bit keys. Where the C type only carries the keys' bits (`uint16_t` for `f16`), "`{c}` keys"
/// says what they hold.
pub struct Family {
    /// The generated file, relative to `ffi/src`.
    pub file: &'static str,
    /// The file's module doc, after the sentence naming the functions.
    pub about: &'static str,
    /// The name before the key type (`gpusort_sort_keys_`)...
    pub stem: &'static str,
    /// ... and after it (`_u64` for 64-bit values, else nothing).
    pub suffix: &'static str,
    /// The `use` lines the functions need.
    pub uses: &'static str,
    /// The parameters after `sorter`, as `name: type`, `K` for the key type.
    pub params: &'static [&'static str],
    /// The generic function (in the family's `mod.rs`) that every member forwards to, with its
    /// parameters' names in order.
    pub generic: &'static str,
    /// The docs of the `_u32` member, as they are...
    pub docs: &'static str,
    /// ... and its `# Safety` section.
    pub safety: &'static str,
    /// The docs of the other members (wrapped), whose safety is "As" the `_u32` member's.
    pub brief: &'static str,
    /// The note `{float}` stands for.
    pub float: &'static str,
    /// The note `{wide}` stands for.
    pub wide: &'static str,
}

impl Family {
    fn name(&self, t: KeyType) -> String {
        format!("{}{}{}", self.stem, t.name(), self.suffix)
    }

    /// The family's file: its module doc, uses and one function per key type.
    pub fn render(&self) -> String {
        let first = self.name(KeyType::U32).replace("_u32", "_<t>");
        let mut out = wrap("//!", &format!("The `{first}` entry points, one per key type. {}", self.about));
        out += &format!("//!\n{}\n{}\n{}", wrap("//!", GENERATED), self.uses, type_uses());
        for &t in KeyType::ALL {
            out += "\n";
            if t == KeyType::U32 {
                out += &doc_lines(self.docs);
                out += "///\n/// # Safety\n";
                out += &doc_lines(self.safety);
            } else {
                out += &wrap("///", &self.fill(self.brief, t));
                out += &format!("///\n/// # Safety\n/// As `{}`.\n", self.name(KeyType::U32));
            }
            out += &format!("#[no_mangle]\npub unsafe extern \"C\" fn {}(\n", self.name(t));
            out += "    sorter: *const gpusort_sorter,\n";
            let mut args = vec!["sorter"];
            for param in self.params {
                let (name, ty) = param.split_once(": ").expect("a parameter is `name: type`");
                args.push(name);
                let ty: Vec<&str> = ty.split(' ').map(|w| if w == "K" { t.name() } else { w }).collect();
                out += &format!("    {name}: {},\n", ty.join(" "));
            }
            out += &format!(") -> gpusort_status {{\n    super::{}({})\n}}\n", self.generic, args.join(", "));
        }
        out
    }

    fn fill(&self, text: &str, t: KeyType) -> String {
        let float = if t.is_float() { self.float } else { "" };
        let wide = if t.size() == 8 { self.wide } else { "" };
        let text = text.replace("{float}", float).replace("{wide}", wide);
        let keys = match holds(t) {
            "" => format!("`{}` keys", t.c_type()),
            bits => format!("`{}` keys holding {bits}", t.c_type()),
        };
        text.replace("`{c}` keys", &keys).replace("{c}", t.c_type()).replace("{t}", t.name())
    }
}

/// The Rust types of the key list that are not primitives (`f16`, `bf16`).
fn library_types() -> Vec<&'static str> {
    const PRIMITIVES: &[&str] = &["u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f32", "f64"];
    KeyType::ALL.iter().map(|t| t.name()).filter(|n| !PRIMITIVES.contains(n)).collect()
}

/// The `use` line naming the key list's library types, which the signatures spell by their Rust
/// names (cbindgen.toml renames them to their C carriers).
fn type_uses() -> String {
    let mut types = library_types();
    types.sort_unstable();
    match types.as_slice() {
        [] => String::new(),
        [one] => format!("use gpusort_core::{one};\n"),
        more => format!("use gpusort_core::{{{}}};\n", more.join(", ")),
    }
}

/// What the C type of `t` holds where C has no type of its own (nothing for the others).
fn holds(t: KeyType) -> &'static str {
    match t.name() {
        "f16" => "the bits of IEEE 754 binary16 floats",
        "bf16" => "the bits of bfloat16 floats",
        name => {
            assert!(!library_types().contains(&name), "say what the `{}` of `{name}` keys hold", t.c_type());
            ""
        }
    }
}

/// `text`'s lines as doc comment lines, as they are.
fn doc_lines(text: &str) -> String {
    text.lines().map(|l| if l.is_empty() { "///\n".to_owned() } else { format!("/// {l}\n") }).collect()
}

/// `text` as comment lines starting with `prefix`, of at most [`DOC_WIDTH`] characters (but
/// for single longer words). A span in backticks is never broken.
fn wrap(prefix: &str, text: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match words.last_mut() {
            Some(last) if last.matches('`').count() % 2 == 1 => *last += &format!(" {word}"),
            _ => words.push(word.to_owned()),
        }
    }
    let mut out = String::new();
    let mut line = String::from(prefix);
    for word in words {
        if line.len() > prefix.len() && line.len() + 1 + word.len() > DOC_WIDTH {
            out += &line;
            out += "\n";
            line = String::from(prefix);
        }
        line += " ";
        line += &word;
    }
    out + &line + "\n"
}

/// The `GPUSORT_KEY_*` values, the positions of the key types in the list.
pub fn key_type_values() -> String {
    let about = format!("The `GPUSORT_KEY_*` values: the position of each key type in the key list. {GENERATED}");
    let mut out = wrap("//!", &about) + "\nuse super::gpusort_key_type;\n";
    for (i, &t) in KeyType::ALL.iter().enumerate() {
        let float = if t.is_float() {
            format!(
                ", in IEEE 754 totalOrder (as `gpusort_sort_keys_{}`) unless a `GPUSORT_FLOAT_ORDER_*` value says \
                 otherwise",
                t.name()
            )
        } else {
            String::new()
        };
        out += "\n";
        let c = match holds(t) {
            "" => format!("`{}`", t.c_type()),
            bits => format!("`{}` holding {bits}", t.c_type()),
        };
        out += &wrap("///", &format!("{c}{float}."));
        out += &format!("pub const GPUSORT_KEY_{}: gpusort_key_type = {i};\n", t.name().to_uppercase());
    }
    out
}

const SORT_USES: &str = "use crate::args::{gpusort_algorithm, gpusort_order};
use crate::sorter::gpusort_sorter;
use crate::status::gpusort_status;";

const ORDER_USES: &str = "use crate::args::gpusort_order;
use crate::sorter::gpusort_sorter;
use crate::status::gpusort_status;";

/// How floating-point keys are ordered, said where a family refers to it: those families keep
/// total order, and refuse float keys on a sorter with another float order.
const TOTAL_ORDER: &str =
    " in IEEE 754 totalOrder (see `gpusort_sort_keys_{t}`; `GPUSORT_INVALID_ARGUMENT` on a sorter \
                           with another float order)";

/// Every family of per-key-type entry points.
pub const FAMILIES: &[Family] = &[
    Family {
        file: "sort/keys.rs",
        about: "Each forwards to `sort_keys`.",
        stem: "gpusort_sort_keys_",
        suffix: "",
        uses: SORT_USES,
        params: &["keys: *mut K", "len: usize", "order: gpusort_order", "algorithm: gpusort_algorithm"],
        generic: "sort_keys",
        docs: "Sorts `len` `uint32_t` keys in `order`. `keys` may be NULL only when `len` is 0; on failure
it holds its original contents.",
        safety: "`keys` must point to `len` keys that no other thread touches during the call.",
        brief: "Sorts `len` `{c}` keys in `order` (see `gpusort_sort_keys_u32`){float}.",
        float: ", in IEEE 754 totalOrder: `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`, or in the \
                sorter's float order (`gpusort_sorter_with_float_order`), keys it makes equal kept in input order",
        wide: "",
    },
    Family {
        file: "sort/pairs.rs",
        about: "Each forwards to `sort_pairs`, with `uint32_t` values (`pairs64.rs` has the `uint64_t` ones).",
        stem: "gpusort_sort_pairs_",
        suffix: "",
        uses: SORT_USES,
        params: &[
            "keys: *mut K",
            "values: *mut u32",
            "len: usize",
            "order: gpusort_order",
            "algorithm: gpusort_algorithm",
        ],
        generic: "sort_pairs",
        docs: "Sorts split arrays of `len` `uint32_t` keys and `len` `uint32_t` values by key in `order`,
each value moving with its key; stable with `GPUSORT_ALGORITHM_AUTO` or `_RADIX`. Either
array may be NULL only when `len` is 0; the arrays must not overlap
(`GPUSORT_INVALID_ARGUMENT`). On failure both hold their original contents.",
        safety: "`keys` and `values` must each point to `len` elements that no other thread touches during
the call.",
        brief: "Sorts `{c}` keys{float} with their `uint32_t` values (see `gpusort_sort_pairs_u32`).",
        float: TOTAL_ORDER,
        wide: "",
    },
    Family {
        file: "sort/pairs64.rs",
        about: "Split pairs with 64-bit values, each forwarding to `sort_pairs`. The values are opaque 8-byte
payloads moved bit for bit: `int64_t` or `double` arrays pass as `(uint64_t *)`. On the GPU
the keys are argsorted there and both arrays permuted on the host (`Sorter::sort_pairs`), so
every backend gives the same result.",
        stem: "gpusort_sort_pairs_",
        suffix: "_u64",
        uses: SORT_USES,
        params: &[
            "keys: *mut K",
            "values: *mut u64",
            "len: usize",
            "order: gpusort_order",
            "algorithm: gpusort_algorithm",
        ],
        generic: "sort_pairs",
        docs: "Sorts split arrays of `len` `uint32_t` keys and `len` `uint64_t` values by key in `order`,
each value moving with its key: row ids past 2^32, offsets, or any 8-byte payload (cast
`int64_t *` and `double *` arrays; the bits are moved, never read as numbers). Always stable
(equal keys keep their input order): with a GPU sorting network asked for, the GPU's radix
sort argsorts the keys instead (a CPU sorter refuses the networks with `GPUSORT_UNSUPPORTED`,
as for `uint32_t` values). Either array may be NULL only when `len` is 0; the arrays must not
overlap (`GPUSORT_INVALID_ARGUMENT`). On failure both hold their original contents. Extra host
memory on the GPU path: 4 bytes plus one key and one value per pair. An array of
`{uint64_t key; uint64_t value;}` structs sorts with `gpusort_sort_records` instead.",
        safety: "`keys` and `values` must each point to `len` elements that no other thread touches during
the call.",
        brief: "Sorts `{c}` keys{float} with their `uint64_t` values (see `gpusort_sort_pairs_u32_u64`).",
        float: TOTAL_ORDER,
        wide: "",
    },
    Family {
        file: "argsort/per_key.rs",
        about: "Each forwards to `argsort`.",
        stem: "gpusort_argsort_",
        suffix: "",
        uses: ORDER_USES,
        params: &["keys: *const K", "len: usize", "out: *mut u64", "order: gpusort_order"],
        generic: "argsort",
        docs: "Writes to `out` the stable permutation that sorts `len` `uint32_t` keys in `order`:
`keys[out[0]]`, `keys[out[1]]`, ... are in order, and equal keys keep their input order
(ascending and descending alike: descending is not the ascending result reversed). The keys
are only read. Always the stable radix sort, on the sorter's backend (the GPU when the sorter
picks it; past 2^32 keys, the CPU).

Indices are `uint64_t` for every key type, so that any `size_t` length is reachable and
NumPy-style `int64`/`uint64` index buffers are filled directly (every index is below `len`).

`sorter` may be NULL (the default sorter). `keys` and `out` may be NULL only when `len` is 0;
they must be aligned and must not overlap (`GPUSORT_INVALID_ARGUMENT`). On failure `out` holds
its original contents or, where the GPU failed while the indices came down, the complete result
(finished on the CPU from the keys); never part of one (except after `GPUSORT_PANIC`, a bug).

```c
uint32_t keys[] = {30, 10, 30, 20};
uint64_t idx[4];
gpusort_argsort_u32(NULL, keys, 4, idx, GPUSORT_ASCENDING);    /* idx: 1 3 0 2 */
gpusort_argsort_u32(NULL, keys, 4, idx, GPUSORT_DESCENDING);   /* idx: 0 2 3 1 */
```",
        safety: "`keys` must point to `len` keys that nothing writes during the call; `out` to `len`
writable `uint64_t` that nothing else touches during the call.",
        brief: "The stable permutation that sorts `{c}` keys (see `gpusort_argsort_u32`){float}.",
        float: ", in IEEE 754 totalOrder or the sorter's float order (see `gpusort_sort_keys_{t}`)",
        wide: "",
    },
    Family {
        file: "segments/per_key.rs",
        about: "Each forwards to `segments`.",
        stem: "gpusort_sort_segments_",
        suffix: "",
        uses: ORDER_USES,
        params: &[
            "keys: *mut K",
            "values: *mut u32",
            "len: usize",
            "offsets: *const usize",
            "num_offsets: usize",
            "order: gpusort_order",
        ],
        generic: "segments",
        docs: "Sorts each segment of `len` `uint32_t` keys on its own, in `order`, stably (equal keys keep
their order, ascending and descending alike), each value of `values` moving with its key.
Segment `s` is `keys[offsets[s]]` up to (not including) `keys[offsets[s + 1]]`: `offsets`
holds `num_offsets` positions (segments + 1) that start at 0, end at `len` and never fall;
empty segments are fine, and nothing crosses a segment boundary. A batch of rows of `cols`
keys (`torch.sort(dim=-1)`, `np.sort(axis=-1)`) is the offsets `0, cols, 2 * cols, ...`. The
segments are sorted together, in one or two sorts of the whole array, on the sorter's backend
(the GPU when the sorter picks it); always the stable radix sort, whatever the sorter.

`values` may be NULL: the keys alone are sorted. `sorter` may be NULL (the default sorter).
`keys` and `values` may be NULL only when `len` is 0, `offsets` only when `num_offsets` is 0,
which is an error: the offsets hold at least `{0, len}` (`{0}` when `len` is 0). Offsets that
do not cut `len` keys into segments (`num_offsets` 0, a first offset other than 0, a last
other than `len`, a fall, more than 2^32 segments), overlapping arrays, or 64-bit keys past
2^32 are `GPUSORT_INVALID_ARGUMENT`. On failure the keys and values hold their original
contents (except after `GPUSORT_PANIC`, a bug).

```c
uint32_t keys[] = {3, 1, 2, /* | */ 9, 7, /* | */ 5};
uint32_t rows[] = {0, 1, 2, 3, 4, 5};
const size_t offsets[] = {0, 3, 5, 6};   /* three segments */
gpusort_sort_segments_u32(NULL, keys, rows, 6, offsets, 4, GPUSORT_ASCENDING);
/* keys: 1 2 3  7 9  5; rows: 1 2 0  4 3  5 */
gpusort_sort_segments_u32(NULL, keys, NULL, 6, offsets, 4, GPUSORT_DESCENDING);
/* keys: 3 2 1  9 7  5 (keys only) */
```",
        safety: "`keys` must point to `len` keys and `values` (unless NULL) to `len` values that no other
thread touches during the call; `offsets` to `num_offsets` `size_t` that nothing writes
during the call.",
        brief: "Sorts each segment of `{c}` keys{float}, with their `uint32_t` values or (`values` NULL) alone \
                (see `gpusort_sort_segments_u32`){wide}.",
        float: TOTAL_ORDER,
        wide: "; up to 2^32 keys",
    },
    Family {
        file: "topk/per_key.rs",
        about: "Each forwards to `top_k`.",
        stem: "gpusort_top_k_",
        suffix: "",
        uses: ORDER_USES,
        params: &[
            "keys: *const K",
            "len: usize",
            "k: usize",
            "out_keys: *mut K",
            "out_indices: *mut u64",
            "order: gpusort_order",
        ],
        generic: "top_k",
        docs: "Writes the `k` smallest of `len` `uint32_t` keys (the `k` largest with `GPUSORT_DESCENDING`),
sorted in `order`, to `out_keys`, and where each stood in `keys` to `out_indices`: exactly
the first `k` entries of a stable sort, as `gpusort_argsort_u32` would order them, so equal
keys come in increasing position and ties at the `k`-th key go to the earliest positions
(descending too). `keys[out_indices[i]] == out_keys[i]`. The keys are only read. Without
sorting the rest: the `k` are picked on all host cores in one to three passes over the keys,
then only they are sorted, on the sorter's backend (the GPU when the sorter picks it).

`k` runs from 0 to `len` (`GPUSORT_INVALID_ARGUMENT` above); `out_keys` holds `k` keys and
`out_indices`, unless NULL (the keys alone), `k` indices. `sorter` may be NULL (the default
sorter). `keys` may be NULL only when `len` is 0, the outputs only when `k` is 0; arrays must
be aligned and must not overlap (`GPUSORT_INVALID_ARGUMENT`). On failure the outputs are not
written: they hold their original contents (except after `GPUSORT_PANIC`, a bug).

```c
uint32_t keys[] = {30, 10, 30, 20, 10};
uint32_t best[3];
uint64_t at[3];
gpusort_top_k_u32(NULL, keys, 5, 3, best, at, GPUSORT_ASCENDING);    /* best: 10 10 20, at: 1 4 3 */
gpusort_top_k_u32(NULL, keys, 5, 1, best, NULL, GPUSORT_DESCENDING); /* best: 30 (keys only) */
```",
        safety: "`keys` must point to `len` keys that nothing writes during the call; `out_keys` to `k`
writable keys and `out_indices` (unless NULL) to `k` writable `uint64_t`, which nothing else
touches during the call.",
        brief: "The `k` first `{c}` keys in `order`{float}, with their positions (see `gpusort_top_k_u32`).",
        float: ", in IEEE 754 totalOrder (see `gpusort_sort_keys_{t}`: a NaN is among the largest keys, or the \
                smallest when negative; `GPUSORT_INVALID_ARGUMENT` on a sorter with another float order)",
        wide: "",
    },
];
