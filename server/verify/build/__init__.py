"""Building a side: the compiler and its flags, what its errors mean, and what the built program defines.

``_toolchain`` picks the compiler, the flags (the harness's ``_compile_db``
reads them from ``compile_commands.json``) and the headers a build may read; ``_symbols``
reads a built program's symbol tables for the library functions a candidate
may not replace; ``_worker_objects`` keeps perfalign's worker compiled once per process for each command
that builds it. Every module is private to the verifier.
"""
