"""Screen model-written code before it is built: reject what a rewrite of a
computation has no business doing.

A candidate is rejected when it calls a process, file, network, memory-mapping
or dynamic-loading function, uses inline assembly, or includes a header outside
the safe list, unless the original code does the same. Calls are found in the
syntax tree (tree-sitter), not by text search, so comments and strings do not
count; a function named only inside a macro body is caught by a word search of
the macro. The screen is a first line: the sandbox holds for code that passes.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

# name -> what kind of thing it does; the reason names the kind.
UNSAFE_FUNCTIONS: dict[str, str] = {}
for _kind, _names in {
    "process control": (
        "system popen pclose fork vfork clone clone3 execl execlp execle execv execvp execvpe execve fexecve "
        "posix_spawn posix_spawnp kill killpg raise setsid daemon ptrace syscall prctl setuid setgid seteuid "
        "setegid setreuid setregid chroot mount umount unshare setns pthread_kill sigaction signal wait waitpid "
        "sigprocmask pthread_sigmask sched_setaffinity pthread_setaffinity_np sched_setscheduler setpriority nice "
        "process_vm_readv process_vm_writev personality"
    ),
    "threads": "pthread_create thrd_create thread jthread async",
    "file access": (
        "fopen fopen64 freopen fdopen open open64 openat creat unlink unlinkat remove rename renameat mkdir "
        "mkdirat rmdir chmod fchmod chown fchown lchown truncate ftruncate symlink link mkfifo mknod opendir "
        "readdir tmpfile tmpnam mkstemp mkdtemp chdir fchdir read write pread pwrite readv writev dup dup2 "
        "ioctl fcntl sendfile splice ofstream ifstream fstream filebuf basic_ofstream basic_ifstream "
        "basic_fstream filesystem getenv secure_getenv __secure_getenv setenv putenv environ __environ "
        "openat64 openat2 pread64 pwrite64 preadv pwritev readlink readlinkat stat lstat fstatat statx access "
        "faccessat getline getdelim fgets fread fwrite fscanf"
    ),
    "network access": (
        "socket socketpair connect bind listen accept accept4 send sendto sendmsg recv recvfrom recvmsg "
        "getaddrinfo gethostbyname gethostbyaddr inet_pton inet_addr shutdown"
    ),
    "memory mapping": "mmap mmap64 mprotect mremap shmget shmat shm_open memfd_create",
    "dynamic loading": "dlopen dlmopen dlsym dlvsym",
}.items():
    for _name in _names.split():
        UNSAFE_FUNCTIONS[_name] = _kind

# Headers a rewrite of a computation may include without the original doing so.
# Including <stdio.h> or <iostream> is harmless by itself (models add them out of
# habit); what matters is calling their file functions, which the call screen
# above rejects by name.
SAFE_HEADERS = frozenset(
    """
    stdio.h cstdio iostream ostream istream sstream iomanip time.h ctime chrono
    assert.h complex.h ctype.h errno.h fenv.h float.h inttypes.h iso646.h limits.h math.h stdalign.h
    stdarg.h stdbool.h stddef.h stdint.h stdlib.h string.h tgmath.h stdnoreturn.h omp.h
    immintrin.h x86intrin.h xmmintrin.h emmintrin.h pmmintrin.h tmmintrin.h smmintrin.h nmmintrin.h
    wmmintrin.h arm_neon.h arm_sve.h
    algorithm array atomic bit bitset cassert ccomplex cctype cerrno cfenv cfloat cinttypes climits cmath
    complex concepts cstdarg cstdbool cstddef cstdint cstdlib cstring deque execution functional
    initializer_list iterator limits list map memory memory_resource new numbers numeric optional queue
    random ranges ratio set span stack string string_view tuple type_traits unordered_map unordered_set
    utility valarray variant vector
    """.split()
)

ASM_NODES = frozenset({"gnu_asm_expression", "asm_statement", "asm_declaration"})
ASM_WORDS = re.compile(r"\b(?:asm|__asm__|__asm)\b")
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Uses:
    """What a piece of code does that the screen cares about."""

    names: frozenset[str]  # identifiers, type names and namespace names in the code and its macros
    declared: frozenset[str]  # variables and parameters the code declares itself (never functions)
    headers: frozenset[str]
    asm: bool


@lru_cache(maxsize=2)
def _parser(language: str) -> Any:
    from tree_sitter import Language, Parser

    if language in ("cpp", "c++", "cxx"):
        import tree_sitter_cpp

        return Parser(Language(tree_sitter_cpp.language()))
    import tree_sitter_c

    return Parser(Language(tree_sitter_c.language()))


NAME_NODES = frozenset({"identifier", "type_identifier", "namespace_identifier"})
DECLARING = frozenset(
    {"init_declarator", "parameter_declaration", "declaration", "field_declaration", "pointer_declarator",
     "array_declarator", "reference_declarator", "optional_parameter_declaration"}
)


def uses(code: str, language: str) -> Uses:
    """The names, included headers and inline assembly in ``code``."""
    tree = _parser(language).parse(code.encode("utf-8", errors="replace"))
    names: set[str] = set()
    declared: set[str] = set()
    headers: set[str] = set()
    asm = False
    algorithms: set[tuple[int, int]] = set()
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind == "call_expression":
            _note_algorithm_call(node, algorithms)
        if kind in ASM_NODES or kind in ("asm", "__asm__", "__asm"):
            asm = True
        elif kind in NAME_NODES:
            if (node.start_byte, node.end_byte) in algorithms:
                continue
            names.add(_text(node))
            parent = node.parent
            if kind == "identifier" and parent is not None and parent.type in DECLARING:
                if parent.child_by_field_name("declarator") == node:
                    declared.add(_text(node))
        elif kind == "preproc_include":
            path = node.child_by_field_name("path")
            if path is not None:
                headers.add(_text(path).strip('<>"'))
        elif kind == "preproc_arg":
            body = _text(node)
            names.update(WORD.findall(body))
            if ASM_WORDS.search(body):
                asm = True
        stack.extend(node.children)
    return Uses(frozenset(names), frozenset(declared), frozenset(headers), asm)


# Names that are also C++ algorithms: ``std::remove(first, last, value)`` is not the file function ``remove(path)``.
ALGORITHM_ARITY = {"remove": 1, "bind": 3}


def _note_algorithm_call(node: Any, algorithms: set[tuple[int, int]]) -> None:
    function = node.child_by_field_name("function")
    arguments = node.child_by_field_name("arguments")
    if function is None or arguments is None:
        return
    name_node = function.child_by_field_name("name") if function.type == "qualified_identifier" else function
    while name_node is not None and name_node.type == "qualified_identifier":
        name_node = name_node.child_by_field_name("name")
    if name_node is None or name_node.type != "identifier":
        return
    arity = ALGORITHM_ARITY.get(_text(name_node))
    if arity is not None and arguments.named_child_count != arity:
        algorithms.add((name_node.start_byte, name_node.end_byte))


def _text(node: Any) -> str:
    return node.text.decode("utf-8", errors="replace") if node.text is not None else ""


# Code that runs before main, or that asks which sanitizer it is built with (a candidate that took a safe path
# only under ThreadSanitizer would pass the race check and race when timed).
HIDDEN_CODE = re.compile(
    r"__attribute__\s*\(\([^;{]*?\b(constructor|destructor|section|init_priority|weak|alias|ifunc|used)\b"
    r"|\[\[\s*gnu\s*::\s*(constructor|destructor|section|init_priority|weak|alias|ifunc|used)\b"
    r"|\.(pre)?init_array|\.fini_array"
)
SANITIZER_WORDS = re.compile(
    r"__SANITIZE_\w+__|__has_feature|__has_builtin\s*\(\s*__\w*san|\b(thread|address|memory|undefined)_sanitizer\b"
    r"|\b__(tsan|asan|msan|ubsan|lsan|sanitizer)\w*"
)
INCLUDE_NEXT = re.compile(r"^\s*#\s*include_next\b", re.MULTILINE)
QUOTED_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]*)"', re.MULTILINE)


def _hidden(candidate: str, original: str) -> str | None:
    """Code before main, sanitizer detection, and includes that reach past the headers the original uses."""
    code = _without_comments(candidate)
    before = _without_comments(original)
    if (m := HIDDEN_CODE.search(code)) and not HIDDEN_CODE.search(before):
        return (f"uses {m.group(0).strip()!r}: code that runs before main or that the linker places itself, "
                "which the original code does not; rewrites may only compute")
    if (m := SANITIZER_WORDS.search(code)) and not SANITIZER_WORDS.search(before):
        return (f"asks which sanitizer it is built with ({m.group(0)}); the race check must see the code that is "
                "timed")
    if INCLUDE_NEXT.search(code) and not INCLUDE_NEXT.search(before):
        return "uses #include_next, which the original code does not"
    known = set(QUOTED_INCLUDE.findall(before))
    for name in QUOTED_INCLUDE.findall(code):
        if name not in known:
            return f'includes "{name}", which the original code does not; a rewrite uses the headers it has'
    return None


def _without_comments(text: str) -> str:
    return re.sub(r"//[^\n]*|/\*.*?\*/", " ", text, flags=re.DOTALL)


def screen(candidate: str, original: str, language: str) -> str | None:
    """The one-line reason to reject ``candidate`` (status ``rejected_unsafe``), or None.

    Anything the original itself uses (a function, a header, inline assembly)
    is allowed in the candidate too.
    """
    hidden = _hidden(candidate, original)
    if hidden:
        return hidden
    cand = uses(candidate, language)
    orig = uses(original, language)
    for name in sorted(cand.names - cand.declared - orig.names):
        kind = UNSAFE_FUNCTIONS.get(name)
        if kind is not None:
            return f"uses {name} ({kind}), which the original code does not; rewrites may only compute"
    if cand.asm and not orig.asm:
        return "uses inline assembly, which the original code does not; rewrites may only use C/C++ and intrinsics"
    for header in sorted(cand.headers - orig.headers):
        if header not in SAFE_HEADERS:
            return (
                f"includes <{header}>, which is not on the list of safe headers and not included by the "
                "original code"
            )
    return None
