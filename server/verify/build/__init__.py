"""Building a side: the compiler and its flags, what its errors mean, and what the built program defines.

``_toolchain`` picks the compiler, the flags (the harness's ``_compile_db``
reads them from ``compile_commands.json``) and the headers a build may read; ``_symbols``
reads a built program's symbol tables for the library functions a candidate
may not replace. Every module is private to the verifier.
"""
