"""A long PDF imported under an address-space limit, its time and peak memory printed:
`python -m knowledge probe-large-pdf [--pages 2000] [--limit-mb 500]`.

The PDF is the synthetic Kowhai travel wording repeated until it has the pages asked for.
The import runs in a child process with RLIMIT_AS set, so going past the limit is a failure
(MemoryError), not a slow machine; the child reports its own peak resident memory (VmHWM).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from knowledge.importing.sample import render_pdf

CHILD = """
import json, resource, sys, time
limit = int(sys.argv[2]) * 1024 * 1024
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from pathlib import Path
from knowledge.importing.pipeline import build
started = time.monotonic()
result = build(Path(sys.argv[1]), "travel", "2026.1", "TRV", None, None)
print(json.dumps({
    "seconds": round(time.monotonic() - started, 1),
    "units": result.report.counts["units"],
    "pages": result.report.accounting["pages"],
    "unaccounted": result.report.accounting["unaccounted"],
    # VmHWM is this program's own high-water mark: getrusage's maxrss keeps the peak of the
    # process it was forked from (a test worker, say) across exec.
    "peak_kb": next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:")),
}))
"""


def import_under_limit(pdf: Path, limit_mb: int, timeout: float = 5400) -> tuple[int, dict, int, str]:
    """(exit status, what the child printed, its peak resident memory in MB, its stderr tail)."""
    run = subprocess.run(
        [sys.executable, "-c", CHILD, str(pdf), str(limit_mb)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    printed = json.loads(run.stdout.strip().splitlines()[-1]) if run.returncode == 0 else {}
    # The child reports its own peak: RUSAGE_CHILDREN would be the largest of every child this
    # process ever waited for (a test worker runs many).
    return run.returncode, printed, printed.get("peak_kb", 0) // 1024, run.stderr[-2000:]


def probe(pages: int, limit_mb: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        pdf = Path(tmp) / "long.pdf"
        started = time.monotonic()
        # One copy of the sample is about four pages.
        render_pdf(pdf, repeat=max(1, pages // 4))
        import pdfplumber

        with pdfplumber.open(str(pdf)) as doc:
            count = len(doc.pages)
        print(f"rendered {count} pages ({pdf.stat().st_size:,} bytes) in {time.monotonic() - started:.0f} s")
        status, printed, peak_mb, err = import_under_limit(pdf, limit_mb)
    if status != 0:
        print(f"FAILED under RLIMIT_AS {limit_mb} MB (exit {status}):\n{err}")
        return 1
    print(
        f"imported {printed['pages']} pages into {printed['units']} units in {printed['seconds']} s, "
        f"peak resident memory {peak_mb} MB, under an address-space limit of {limit_mb} MB; "
        f"{printed['unaccounted']} characters unaccounted"
    )
    return 0
