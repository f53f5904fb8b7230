"""Running in the sandbox: every command and every worker process, and the protocol that drives a worker.

``_sandbox`` runs a command (or spawns a process) under bubblewrap, a
throw-away user id and resource limits; ``_seccomp`` is the filter a worker
starts under; ``worker.c`` is the worker program and ``_worker`` perfalign's
side of its protocol (start, call, time, read results from shared memory);
``_runner`` holds what one function's verification runs things with. Every
module is private to the verifier.
"""
