"""TensorFlow's CPU allocator as a BFC allocator, chosen by environment variables that
TensorFlow 2.21 reads when it allocates its first tensor (``process_state.cc``), not at
import. It then counts what it hands out, so ``get_memory_info("CPU:0")`` reports a
run's real current and peak bytes (the default allocator reports zeros, or raises
with oneDNN off), and it can be given a limit, past which a tensor fails with the
same "OOM when allocating tensor" a GPU raises (the batch-size finder's cap).

``TF_CPU_ALLOCATOR_USE_BFC=true mpstudio compare ...`` measures a CPU run's memory.
"""

from __future__ import annotations

from collections.abc import Mapping

STATISTICS_ENV = "TF_CPU_ALLOCATOR_USE_BFC"
LIMIT_ENV = "TF_CPU_BFC_MEM_LIMIT_IN_MB"
ONEDNN_LIMIT_ENV = "TF_MKL_ALLOC_MAX_BYTES"  # oneDNN builds' "mklcpu" allocator


def keeps_statistics(environ: Mapping[str, str]) -> bool:
    """Whether a process with ``environ`` has the counting allocator."""
    return environ.get(STATISTICS_ENV, "").strip().lower() in ("1", "true")


def capped_environment(mib: float) -> dict[str, str]:
    """The variables that give the CPU allocator a limit of ``mib`` MiB."""
    return {STATISTICS_ENV: "true", LIMIT_ENV: str(int(mib)),
            ONEDNN_LIMIT_ENV: str(int(mib * 2**20))}
