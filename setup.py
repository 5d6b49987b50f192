"""Builds the compiled core (``damier._core``) with Cython.

Set ``DAMIER_PORTABLE=1`` to build without ``-march=native`` (for wheels that
must run on other CPUs); by default the core is tuned for the building machine.
"""

import os
import sys

from Cython.Build import cythonize
from setuptools import Extension, setup

extra_compile_args: list[str] = []
if sys.platform != "win32":
    extra_compile_args = ["-O3", "-fno-strict-aliasing"]
    if os.environ.get("DAMIER_PORTABLE") != "1":
        extra_compile_args.append("-march=native")
    else:
        extra_compile_args.append("-mpopcnt")

extensions = [
    Extension(
        "damier._core",
        ["src/damier/_core.pyx"],
        extra_compile_args=extra_compile_args,
    )
]

setup(
    ext_modules=cythonize(
        extensions,
        language_level=3,
        compiler_directives={
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
            "embedsignature": True,
        },
    )
)
