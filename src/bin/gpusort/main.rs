//! `gpusort`: sorts files of fixed-size records larger than memory, checks sorted files, and
//! writes test files (the Sort Benchmark's 100-byte records, binary or ASCII lines).
//!
//! `gpusort sort --record 100 --key 0:10 INPUT OUTPUT`; `gpusort --help` lists the commands.

mod generate;
mod progress;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Parser, Subcommand, ValueEnum};
use gpusort::{FileKey, KeyType, Order, RecordLayout, SortError, Sorter};

/// Sort files of fixed-size records on the GPU (or the CPU), larger than memory if need be.
#[derive(Parser, Debug)]
#[command(name = "gpusort", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Sort INPUT into OUTPUT (which may be INPUT) by each record's key, stably.
    Sort {
        #[command(flatten)]
        layout: LayoutArgs,
        /// Host memory to use, e.g. 3G or 512M (powers of 1024); default half of what is available.
        #[arg(long, value_parser = parse_size)]
        memory_limit: Option<usize>,
        /// Folder for the sorted runs (as large as the input); default OUTPUT's folder.
        #[arg(long)]
        temp_dir: Option<PathBuf>,
        /// Where to sort: auto picks the GPU when one is usable.
        #[arg(long, value_enum, default_value_t = Backend::Auto)]
        backend: Backend,
        /// No progress bar or summary on stderr.
        #[arg(long, short)]
        quiet: bool,
        /// Print the time of each phase (reading, sorting, writing, merging) on stdout.
        #[arg(long)]
        report: bool,
        input: PathBuf,
        output: PathBuf,
    },
    /// Check that FILE is sorted by the key; print its record count and an order-independent
    /// checksum of its records (equal for a file and its sorted copy). Exit status 1 if unsorted.
    Check {
        #[command(flatten)]
        layout: LayoutArgs,
        file: PathBuf,
    },
    /// Write COUNT random records of --record bytes (keys over the whole byte range, or with
    /// --ascii printable lines ending in a newline, as GNU sort reads them).
    Generate {
        /// Bytes per record.
        #[arg(long, default_value_t = 100)]
        record: usize,
        /// Printable characters, each record a line ending in '\n'.
        #[arg(long)]
        ascii: bool,
        /// Seed of the records.
        #[arg(long, default_value_t = 0x5eed)]
        seed: u64,
        /// How many records, e.g. 200M (powers of 1024 for K, M, G).
        #[arg(value_parser = parse_size)]
        count: usize,
        file: PathBuf,
    },
}

#[derive(Args, Debug)]
struct LayoutArgs {
    /// Bytes per record.
    #[arg(long)]
    record: usize,
    /// The key field, OFFSET:LENGTH in bytes (for number keys LENGTH is the type's size).
    #[arg(long, value_parser = parse_key)]
    key: (usize, usize),
    /// How the key is compared: bytes (unsigned, as memcmp) or a number type.
    #[arg(long, value_enum, default_value_t = KeyKind::Bytes)]
    key_type: KeyKind,
    /// Number keys are stored most significant byte first (default: least significant first).
    #[arg(long)]
    big_endian: bool,
    /// Largest key first.
    #[arg(long)]
    descending: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum KeyKind {
    Bytes,
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    I64,
    F16,
    Bf16,
    F32,
    F64,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Backend {
    Auto,
    Cpu,
    Cuda,
}

/// Exit statuses besides 0 (done) and 2 (a bad command line, from clap).
mod status {
    pub const UNSORTED: u8 = 1;
    pub const BAD_INPUT: u8 = 3;
    pub const IO: u8 = 4;
    pub const OUT_OF_MEMORY: u8 = 5;
    pub const OTHER: u8 = 6;
    /// Interrupted (SIGINT or SIGTERM), as shells report a signal: 128 + SIGINT.
    pub const INTERRUPTED: u8 = 130;
}

impl LayoutArgs {
    fn layout(&self) -> Result<RecordLayout, SortError> {
        let (offset, len) = self.key;
        let key = match self.key_type {
            KeyKind::Bytes => FileKey::Bytes(len),
            kind => {
                let name = format!("{kind:?}").to_lowercase();
                let t = KeyType::from_name(&name).expect("every number kind is in the key list");
                if t.size() != len {
                    return Err(SortError::InvalidArgument(format!("a {name} key is {} bytes, not {len}", t.size())));
                }
                match self.big_endian {
                    true => FileKey::BigEndian(t),
                    false => FileKey::LittleEndian(t),
                }
            }
        };
        RecordLayout::new(self.record, offset, key)
    }

    fn order(&self) -> Order {
        if self.descending {
            Order::Descending
        } else {
            Order::Ascending
        }
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(code) => ExitCode::from(code),
        Err(SortError::Cancelled) => {
            eprintln!("gpusort: interrupted; nothing was written under the output's name");
            ExitCode::from(status::INTERRUPTED)
        }
        Err(e) => {
            eprintln!("gpusort: {e}");
            ExitCode::from(match e {
                SortError::InvalidArgument(_) | SortError::Config(_) => status::BAD_INPUT,
                SortError::Io { .. } => status::IO,
                SortError::OutOfMemory { .. } => status::OUT_OF_MEMORY,
                _ => status::OTHER,
            })
        }
    }
}

fn run(command: Command) -> Result<u8, SortError> {
    match command {
        Command::Sort { layout, memory_limit, temp_dir, backend, quiet, report, input, output } => {
            let mut sorter = match backend {
                Backend::Auto => Sorter::auto(),
                Backend::Cpu => Sorter::cpu(),
                Backend::Cuda => Sorter::cuda()?,
            }
            .with_order(layout.order());
            if let Some(bytes) = memory_limit {
                sorter = sorter.with_host_memory_limit(bytes);
            }
            if let Some(dir) = temp_dir {
                sorter = sorter.with_temp_dir(dir);
            }
            let layout = layout.layout()?;
            progress::stop_on_signals();
            let started = Instant::now();
            let mut bar = progress::Bar::new(!quiet);
            let r = sorter.sort_file_with_progress(&input, &output, &layout, &mut |p| bar.update(p))?;
            bar.finish();
            let secs = started.elapsed().as_secs_f64();
            if !quiet {
                let backend = r.backend.map_or("none".to_string(), |b| format!("{b:?}").to_lowercase());
                eprintln!(
                    "gpusort: sorted {} records ({:.2} GB) in {secs:.2} s on {backend}: {} runs, {} merge passes",
                    r.records,
                    (r.records * layout.record_size() as u64) as f64 / 1e9,
                    r.runs,
                    r.merge_passes
                );
            }
            if report {
                let s = |d: std::time::Duration| d.as_secs_f64();
                let backend = r.backend.map_or("none".to_string(), |b| format!("{b:?}").to_lowercase());
                println!(
                    "backend={backend} total_s={secs:.3} run_phase_s={:.3} merge_phase_s={:.3} reading_s={:.3} sorting_s={:.3} writing_s={:.3} merge_reading_s={:.3} merging_s={:.3} merge_writing_s={:.3} runs={} merge_passes={} budget={}",
                    s(r.run_phase), s(r.merge_phase), s(r.reading), s(r.sorting), s(r.writing),
                    s(r.merge_reading), s(r.merging), s(r.merge_writing), r.runs, r.merge_passes, r.memory_budget
                );
            }
            Ok(0)
        }
        Command::Check { layout, file } => {
            let sorter = Sorter::cpu().with_order(layout.order());
            let c = sorter.check_file(&file, &layout.layout()?)?;
            println!("records={} checksum={:016x}", c.records, c.checksum);
            match c.first_unsorted {
                None => Ok(0),
                Some(at) => {
                    println!("unsorted: record {at} is out of order after record {}", at - 1);
                    Ok(status::UNSORTED)
                }
            }
        }
        Command::Generate { record, ascii, seed, count, file } => {
            generate::write(&file, record, count as u64, ascii, seed)?;
            Ok(0)
        }
    }
}

/// `OFFSET:LENGTH`.
fn parse_key(s: &str) -> Result<(usize, usize), String> {
    let (o, l) = s.split_once(':').ok_or_else(|| format!("`{s}` is not OFFSET:LENGTH"))?;
    let num = |x: &str| x.trim().parse::<usize>().map_err(|_| format!("`{s}` is not OFFSET:LENGTH"));
    Ok((num(o)?, num(l)?))
}

/// A byte count or record count: a number with an optional K, M, G or T (powers of 1024), and an
/// optional B or iB after it.
fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let t = t.strip_suffix("iB").or_else(|| t.strip_suffix('B')).unwrap_or(t);
    let (digits, shift) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => return Err(format!("`{s}` is not a size (a number with K, M, G or T)")),
            };
            (&t[..i], shift)
        }
        _ => (t, 0),
    };
    let n: usize = digits.trim().parse().map_err(|_| format!("`{s}` is not a size (a number with K, M, G or T)"))?;
    n.checked_mul(1usize << shift).ok_or_else(|| format!("`{s}` is too large"))
}
