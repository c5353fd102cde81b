"""Build step that pyproject.toml cannot express: ship the built-in sets inside the wheel.

The top-level personas/, perturbations/ and studies/ folders stay the one editable source (users add
sets there). At build time they are copied into the wheel as survey/registry/builtin/<folder>/, so an
installed package finds them without the source tree (survey/registry/files.py). Editable installs
read the source tree directly and copy nothing.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
# folder -> the file types that ship from it
SHIPPED = {"personas": (".jsonl",), "perturbations": (".yaml", ".yml"), "anchors": (".yaml", ".yml"),
           "studies": (".toml",),
           "studies/data": (".csv",)}  # human answers the shipped studies name (a few KB, sources in each file)
BUILTIN = Path("survey", "registry", "builtin")


class BuildWithBuiltinSets(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for folder, exts in SHIPPED.items():
            target = Path(self.build_lib) / BUILTIN / folder
            target.mkdir(parents=True, exist_ok=True)
            for path in sorted((ROOT / folder).iterdir()):
                if path.is_file() and path.suffix in exts:
                    shutil.copyfile(path, target / path.name)


setup(cmdclass={"build_py": BuildWithBuiltinSets})
