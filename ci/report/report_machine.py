"""The machine section both reports open with, and the GPU's name as the titles give it."""

from report_fmt import table

def cpu_label(data):
    m = data.machine
    cpu = m.get("cpu", "unknown CPU")
    if m.get("cores"):
        cpu += f", {m['cores']} hardware threads"
    return cpu


def machine_section(data, gpu):
    m = data.machine
    rows = []
    if gpu:
        rows.append(("GPU", m.get("gpu") or data.meta.get("bench-gpu", "unknown")))
        rows.append(("driver", m.get("driver", "unknown")))
        rows.append(("gpusort's view", data.meta.get("bench-gpu", "")))
        rows.append(("nvcc (CUB harness)", m.get("nvcc", "absent")))
        rows.append(("CUB", data.meta.get("cub-version", data.notes.get("cub", "not measured"))))
        # A host-only run times torch.topk alone.
        torch = data.meta.get("torch-version") or data.meta.get("torch-topk-version")
        rows.append(("torch", torch or data.notes.get("torch", "not measured")))
    rows.append(("CPU", cpu_label(data)))
    rows.append(("CPU backend", data.meta.get("bench-cpu", "")))
    rows.append(("OS", m.get("os", "")))
    rows.append(("gpusort", m.get("commit", "")))
    rows.append(("date (UTC)", m.get("date", "")))
    rows.append(("command", f"`{m.get('command', 'ci/report.sh')}`"))
    return table(["", ""], [r for r in rows if r[1]], ["---", "---"])


def gpu_name(data):
    g = data.machine.get("gpu") or data.meta.get("bench-gpu", "this GPU")
    return g.split(",")[0].strip()


def page_lead(data, sources, tool):
    """The opening of a docs/BENCHMARKS-<section>.md page: the machine and date of the run whose
    figures it renders (`sources`, a list of phrases), and the tool that rendered them."""
    m = data.machine
    if m:
        where = f"{gpu_name(data)} (driver {m.get('driver', 'unknown')}), {m.get('date', 'date unknown')}: "
    else:
        where = "Machine not recorded: " if sources else ""
    if sources:
        return f"{where}{' and '.join(sources)}, rendered by {tool}"
    return f"Not measured yet: no run's figures were given to {tool}"


def run_name(data):
    """The command and commit of the run, as the report's machine lines give them."""
    m = data.machine
    return f"`{m.get('command', 'ci/report.sh')}` at {m.get('commit', 'an unknown commit')}"
